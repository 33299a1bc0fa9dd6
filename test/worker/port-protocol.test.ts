/**
 * The tab ↔ worker port protocol under Node: real MessageChannel ports, real Yjs docs and stores
 * in the "worker", FakeLocks standing in for the browser's Web Locks (crash = the browser releasing
 * a dead realm's locks). Each test names the invariant or scenario it pins.
 */
import * as Y from "yjs";
import { describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser, type BrowserStore } from "../../src/worker/connect-browser.ts";
import { parseTabMessage } from "../../src/worker/parse-tab-message.ts";
import { parseWorkerMessage } from "../../src/worker/parse-worker-message.ts";
import { PROTOCOL } from "../../src/worker/protocol.ts";
import { internalsOf } from "../../src/internals.ts";
import { browser, cleanup, pageEvents, sharedWorkerHere, until as poll } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/items";
let seq = 0;
/** Resolves once `check` holds, re-checked on each snapshot change of `req` in `store`. */
function until(store: BrowserStore, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const off = store.subscribe({ url: API }, () => {
      if (!check()) return;
      off();
      resolve();
    });
  });
}

describe("tabs as views of the worker's replica", () => {
  it("two tabs ask at once: one request at the host, both resolve with its data (invariant 8: pending, never idle, while asked)", async () => {
    const host = new Host();
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    expect(t1.mode).toBe("shared-worker");
    const p1 = t1.ensure({ url: API });
    const p2 = t2.ensure({ url: API });
    // Asked and not yet answered by the worker: the local snapshot says pending at once.
    expect(t1.snapshot({ url: API }).status).toBe("pending");
    const [call] = await host.whenCalls(1);
    call!.respond(200, { items: [1, 2] });
    const [s1, s2] = await Promise.all([p1, p2]);
    expect(s1).toMatchObject({ status: "success", data: { items: [1, 2] } });
    expect(s2).toMatchObject({ status: "success", data: { items: [1, 2] } });
    expect(host.calls).toHaveLength(1);
    // One replica for the browser; the second worker is t2's standby for the next generation (it asked nothing).
    expect([...b.workers.keys()]).toEqual([`shared-fetch:${b.name}:0`, `shared-fetch:${b.name}:1`]);
    expect(
      b
        .workerStore(0)
        .inspect()
        .keys.map((k) => k.key),
    ).toEqual([t1.keyOf({ url: API })]);
    // One replica for the browser: both tabs name the same one.
    expect(t1.replicaId).toBe(t2.replicaId);
    expect(t1.snapshot({ url: API })).toMatchObject({ status: "success" });
    expect(t1.resultInfo({ url: API })?.rev).toBe(1);
  });

  it("subscribe pushes the worker's snapshots; an unchanged snapshot keeps its identity (useSyncExternalStore)", async () => {
    const host = new Host();
    const b = browser(host);
    const [asker, viewer] = [b.tab(), b.tab()];
    const seen: string[] = [];
    viewer.subscribe({ url: API }, () => seen.push(viewer.snapshot({ url: API }).status));
    void asker.ensure({ url: API }).catch(() => {});
    const [call] = await host.whenCalls(1);
    // The worker's push (its claim): the tab's own pending, shown before any answer, is none.
    await until(viewer, () => viewer.snapshot({ url: API }).claim !== undefined);
    call!.respond(200, { ok: true });
    await until(viewer, () => viewer.snapshot({ url: API }).status === "success");
    const a = viewer.snapshot({ url: API });
    expect(viewer.snapshot({ url: API })).toBe(a);
    expect(seen).toContain("pending");
    expect(seen.at(-1)).toBe("success");
  });

  it("invariant 13: a request's headers and body reach the host through the port, never the doc", async () => {
    const host = new Host();
    const b = browser(host);
    const t = b.tab();
    const req = { url: API, method: "POST", headers: { authorization: "Bearer s3cret-token" }, body: '{"card":"4111-secret"}' };
    const p = t.refetch(req);
    const [call] = await host.whenCalls(1);
    expect(call!.headers.authorization).toBe("Bearer s3cret-token");
    expect(call!.body).toBe('{"card":"4111-secret"}');
    call!.respond(200, { placed: 1 });
    await p;
    const store = [...b.workers.values()][0]!.stores()[0]!;
    const doc = internalsOf(store).records.doc as Y.Doc;
    const text = JSON.stringify(Y.encodeStateAsUpdate(doc)) + JSON.stringify(doc.toJSON());
    expect(text).not.toContain("s3cret-token");
    expect(Buffer.from(Y.encodeStateAsUpdate(doc)).toString("latin1")).not.toContain("4111-secret");
  });

  it("bad input rejects at once in the tab, naming the value, and nothing reaches the worker", async () => {
    const host = new Host();
    const b = browser(host);
    const t = b.tab();
    await expect(t.ensure({ url: "not a url" })).rejects.toThrow(/"not a url" is not a valid absolute URL/);
    await expect(t.ensure({ url: API, method: "BREW" })).rejects.toThrow(/unsupported method "BREW"/);
    expect(() => connectBrowser({ name: "" })).toThrow(/connectBrowser needs \{ name: non-empty string \}, got name ""/);
    expect(host.calls).toHaveLength(0);
  });
});

describe("an explicit refetch through the port", () => {
  it("with skipInFlight it aborts the request in flight (sent before it) and sends its own at once, as TanStack's cancelRefetch: its result answers the tab that asked first too", async () => {
    const host = new Host();
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    const first = t1.ensure({ url: API });
    const [call] = await host.whenCalls(1);
    const own = t2.refetch({ url: API }, { skipInFlight: true });
    const calls = await host.whenCalls(2);
    expect(call!.state).toBe("aborted");
    calls[1]!.respond(200, { n: 2 });
    await expect(own).resolves.toMatchObject({ data: { n: 2 } });
    await expect(first).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(host.calls).toHaveLength(2);
  });
});

describe("who leaves, and what it costs", () => {
  it("invariant 11: a tab that crashes drops only its interest; the request is aborted when the last waiting tab leaves", async () => {
    const host = new Host();
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    const c1 = new AbortController();
    void t1.ensure({ url: API }).catch(() => {});
    const p2 = t2.ensure({ url: API }, { signal: c1.signal });
    const [call] = await host.whenCalls(1);
    // t1's page dies: the browser frees its lock, the worker is granted it and withdraws t1's waiter.
    const store = [...b.workers.values()][0]!.stores()[0]!;
    const waiters = () => store.inspect().keys.find((k) => k.key === t2.keyOf({ url: API }))?.local?.waiters;
    // Both tabs' waiters have reached the worker before t1 dies.
    while (waiters() !== 2) await new Promise((r) => setImmediate(r));
    b.locks.crash(t1.tag);
    while (waiters() !== 1) await new Promise((r) => setImmediate(r));
    // One waiter is left: the request runs on.
    expect(call!.aborted).toBe(false);
    // The last waiter goes: the request is aborted at the host.
    c1.abort();
    await expect(p2).rejects.toMatchObject({ name: "AbortError" });
    await new Promise<void>((resolve) => {
      if (call!.aborted) return resolve();
      const off = host.onCall((c) => {
        if (c === call && c.aborted) {
          off();
          resolve();
        }
      });
    });
    expect(call!.aborted).toBe(true);
    expect(host.calls).toHaveLength(1);
  });

  it("the worker dies mid-request: tabs start the next generation, which takes the claim over; every tab resolves", async () => {
    const host = new Host();
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    const p1 = t1.ensure({ url: API });
    const p2 = t2.ensure({ url: API });
    await host.whenCalls(1);
    // Both tabs served by that worker: one whose hello it never answered waits out the answer
    // bound (WORKER_READY_MS) instead, as it has no lock of the worker's to watch yet.
    await poll(() => t1.replicaId === t2.replicaId);
    const [first] = [...b.workers.keys()];
    // The worker's realm is gone: its locks are released and its store stops.
    b.locks.crash(first!);
    b.workers.get(first!)!.destroy();
    const calls = await host.whenCalls(2);
    expect([...b.workers.keys()][1]).toMatch(/:1$/);
    expect(b.workers.get([...b.workers.keys()][1]!)!.stores()).toHaveLength(1);
    calls[1]!.respond(200, { second: true });
    const [s1, s2] = await Promise.all([p1, p2]);
    expect(s1).toMatchObject({ status: "success", data: { second: true } });
    expect(s2).toMatchObject({ status: "success", data: { second: true } });
    expect(t1.replicaId).toBe(t2.replicaId);
  });
});

describe("back/forward cache", () => {
  it("pagehide drops the tab's interest (its request is aborted, invariant 11); pageshow from the cache re-sends it and it resolves", async () => {
    const page = pageEvents();
    const host = new Host();
    const b = browser(host);
    const t = b.tab();
    const running = t.ensure({ url: API });
    const [first] = await host.whenCalls(1);
    page.dispatchEvent(new Event("pagehide"));
    await new Promise<void>((resolve) => {
      if (first!.aborted) return resolve();
      const off = host.onCall((c) => c === first && c.aborted && (off(), resolve()));
    });
    // Frozen, the tab still shows what it showed: its ensure waits on, pending.
    expect(t.snapshot({ url: API }).status).toBe("pending");
    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    const calls = await host.whenCalls(2);
    calls[1]!.respond(200, { back: true });
    await expect(running).resolves.toMatchObject({ status: "success", data: { back: true } });
  });
});

describe("malformed messages (invariant 14: ignored, never thrown)", () => {
  it("the worker drops garbage from a tab and keeps serving it; a hello it cannot serve is refused, naming why", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { fine: 1 } });
    const locks = new FakeLocks();
    const replica = createBrowserReplica({ locks: locks.forTab("w"), lockName: "w", fetch: host.fetch });
    cleanup(() => replica.destroy());
    const channel = new MessageChannel();
    replica.accept(channel.port2 as unknown as MessagePort);
    const garbage: unknown[] = [
      null,
      42,
      "hello",
      [],
      { t: "ensure" },
      { t: "ensure", id: -1, kind: "fetch", mode: "ensure" },
      { t: "nope" },
    ];
    for (const g of garbage) channel.port1.postMessage(g);
    // A hello the worker cannot serve is refused, naming why (on a port of its own: the tab's
    // link would take a refusal on its port for its own and fall back).
    const other = new MessageChannel();
    cleanup(() => (other.port1.close(), other.port2.close()));
    replica.accept(other.port2 as unknown as MessagePort);
    const refused: unknown[] = [];
    other.port1.onmessage = (event) => void refused.push(event.data);
    const badHellos = [
      { t: "hello", v: 1 },
      { t: "hello", v: PROTOCOL, tab: "x", lock: "x", config: { name: "m", identity: "u", persisted: "no" } },
    ];
    for (const g of badHellos) other.port1.postMessage(g);
    sharedWorkerHere();
    const t = connectBrowser({
      name: `m-${++seq}`,
      worker: () => ({ port: channel.port1 as unknown as MessagePort }),
      locks: locks.forTab("t"),
    });
    cleanup(() => t.destroy());
    await expect(t.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { fine: 1 } });
    await poll(() => refused.length === 2);
    expect(replica.malformed).toBe(garbage.length + badHellos.length);
    expect(refused).toEqual([
      { t: "refused", message: `protocol 1 asked, this worker speaks ${PROTOCOL}` },
      { t: "refused", message: 'config.persisted must be a boolean when given, got "no"' },
    ]);
  });

  it("parsers return undefined for every malformed shape, and never throw", () => {
    const hostile = [undefined, null, 0, "x", [], { t: 1 }, { __proto__: { t: "bye" } }, { t: "snap", key: "k", snap: { status: "done" } }];
    const tricky = Object.create({ t: "abort", id: 1 });
    for (const value of [...hostile, tricky]) {
      expect(parseTabMessage(value)).toBeUndefined();
      expect(parseWorkerMessage(value)).toBeUndefined();
    }
    expect(
      parseWorkerMessage({ t: "snap", key: "k", snap: { status: "pending", claim: { replicaId: "r", mine: "yes", stale: false } } }),
    ).toBeUndefined();
    expect(parseWorkerMessage({ t: "snap", key: "k", snap: { status: "pending" } })).toBeDefined();
  });

  it("a tab drops garbage from the worker and counts it", async () => {
    const host = new Host();
    const b = browser(host);
    const t = b.tab();
    host.auto = () => ({ status: 200, body: 1 });
    await t.ensure({ url: API });
    const receive = (t as unknown as { receive(d: unknown, p: typeof parseWorkerMessage): void }).receive.bind(t);
    for (const g of [null, { t: "settled", id: "x" }, { t: "snap", key: "", snap: {} }]) receive(g, parseWorkerMessage);
    expect((t as unknown as { malformedMessages: number }).malformedMessages).toBe(3);
    expect(t.snapshot({ url: API })).toMatchObject({ status: "success", data: 1 });
  });
});

describe("fallback", () => {
  it("without a worker factory the tab is a replica of its own (mode 'tab'), with the same surface", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: true } });
    const store = connectBrowser({ name: `f-${++seq}`, fetch: host.fetch, locks: new FakeLocks().forTab("solo") });
    cleanup(() => store.destroy());
    expect(store.mode).toBe("tab");
    await expect(store.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { own: true } });
    expect(internalsOf(store).records).toBeDefined();
  });
});
