/**
 * Invariant 11 with invariant 1's "one request": a request another replica joined does not end
 * with the interest of the replica that sent it. The joiner says so in its presence; the claimant,
 * its own asks gone, keeps the request while a joiner present still waits, and aborts it when none
 * does (the joiner stopped waiting or its presence went), or when the claimant itself goes
 * (destroy). Two stores on connectTabs (BroadcastChannel + fake IndexedDB), a real HTTP host on
 * 127.0.0.1 that counts requests and sees the aborted ones.
 */
import "fake-indexeddb/auto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { removeAwarenessStates } from "y-protocols/awareness";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { until } from "./wait.ts";
import { EventEmitter } from "node:events";

type Call = { path: string; aborted: boolean; answer(body: unknown): void };
const calls: Call[] = [];
const host = new EventEmitter();
let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    const call: Call = {
      path: req.url ?? "",
      aborted: false,
      answer: (body) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)),
    };
    res.on("close", () => {
      call.aborted = !res.writableFinished;
      host.emit("change");
    });
    calls.push(call);
    host.emit("change");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const callsTo = (path: string) => calls.filter((c) => c.path === path);
const hostSees = (check: () => boolean) => until(host, "change", check);

function tab(name: string, presence = true) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  const store = createSharedFetchStore({ doc, ...(presence && { awareness: conn.awareness }), settleMs: 10 });
  const close = () => (store.destroy(), conn.destroy(), doc.destroy());
  onTestFinished(close);
  return { conn, store, close };
}

/** Tab A sent `path`'s request for an ask it can abort; tab B waits on A's claim, and A knows it. */
async function joined(path: string) {
  const name = `tabs-${Math.random().toString(36).slice(2)}`;
  const [a, b] = [tab(name), tab(name)];
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
  const url = `${base}${path}`;
  const asked = new AbortController();
  a.store.ensure({ url }, { signal: asked.signal }).catch(() => {});
  await hostSees(() => callsTo(path).length === 1);
  const waits = new AbortController();
  const waiting = b.store.ensure({ url }, { signal: waits.signal });
  waiting.catch(() => {});
  const bId = b.conn.awareness.clientID;
  const waitsSeen = () => Object.keys(a.conn.awareness.getStates().get(bId)?.sharedFetch?.waits ?? {}).length > 0;
  await until(a.conn.awareness, "change", waitsSeen);
  return { a, b, asked, waits, waiting, waitsSeen };
}

describe("a request another replica joined outlives its claimant's interest (invariant 11, invariant 1: one request)", () => {
  it("the claimant's last ask aborts while another tab waits on its claim: the request goes on and answers both, one request", async () => {
    const { asked, waiting } = await joined("/kept");
    asked.abort();
    // The abort is decided a microtask later; give the tabs a round of messages to act on it.
    await new Promise((r) => setTimeout(r, 200));
    expect(callsTo("/kept").map((c) => c.aborted)).toEqual([false]);
    callsTo("/kept")[0]!.answer({ one: true });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { one: true } });
    expect(callsTo("/kept")).toHaveLength(1);
  });

  it("the joiner stops waiting too: nobody waits any more, the request is aborted at the network, and nobody sends it again", async () => {
    const { asked, waits, waitsSeen } = await joined("/nobody");
    asked.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(callsTo("/nobody")[0]!.aborted).toBe(false);
    waits.abort();
    await hostSees(() => callsTo("/nobody")[0]!.aborted);
    expect(waitsSeen()).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(callsTo("/nobody")).toHaveLength(1);
  });

  it("the joiner's tab closes (connectTabs says goodbye): the claimant aborts its request", async () => {
    const { b, asked } = await joined("/closed");
    asked.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(callsTo("/closed")[0]!.aborted).toBe(false);
    b.close();
    await hostSees(() => callsTo("/closed")[0]!.aborted);
  });

  it("the joiner's presence goes without a goodbye (crash: y-protocols' 30 s timeout): the claimant aborts its request", async () => {
    const { a, b, asked, waitsSeen } = await joined("/crashed");
    asked.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(callsTo("/crashed")[0]!.aborted).toBe(false);
    removeAwarenessStates(a.conn.awareness, [b.conn.awareness.clientID], "timeout");
    expect(waitsSeen()).toBe(false);
    await hostSees(() => callsTo("/crashed")[0]!.aborted);
  });

  it("the claimant's store is destroyed: its replica is gone, so its request is aborted and the joiner sends it again", async () => {
    const { a, waiting } = await joined("/destroyed");
    a.store.destroy();
    await hostSees(() => callsTo("/destroyed").length === 2);
    expect(callsTo("/destroyed")[0]!.aborted).toBe(true);
    callsTo("/destroyed")[1]!.answer({ by: "b" });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "b" } });
  });

  it("the limit: stores given no `awareness` cannot say they wait, so the claimant's last ask aborts the request and the joiner sends it again", async () => {
    const name = `tabs-${Math.random().toString(36).slice(2)}`;
    const [a, b] = [tab(name, false), tab(name, false)];
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    const url = `${base}/unheard`;
    const asked = new AbortController();
    a.store.ensure({ url }, { signal: asked.signal }).catch(() => {});
    await hostSees(() => callsTo("/unheard").length === 1);
    const waiting = b.store.ensure({ url });
    const claimSeen = () => b.store.snapshot({ url }).claim !== undefined;
    await new Promise<void>((resolve) => {
      const seen = () => {
        if (!claimSeen()) return;
        off();
        resolve();
      };
      const off = b.store.subscribe({ url }, seen);
      seen();
    });
    expect(b.store.snapshot({ url })).toMatchObject({ status: "pending", claim: { mine: false } });
    asked.abort();
    await hostSees(() => callsTo("/unheard").length === 2);
    expect(callsTo("/unheard")[0]!.aborted).toBe(true);
    callsTo("/unheard")[1]!.answer({ by: "b" });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "b" } });
  });
});
