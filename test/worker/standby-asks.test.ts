/**
 * Asks sent to the standby worker in advance (issue 15, "the worker's host tab is crashed
 * mid-request → a new worker takes over … within today's takeover bounds"): a tab that holds the
 * standby's port sends it its asks as it sends them to the live worker. Under Node: real Yjs docs
 * and stores, a real BroadcastChannel between the workers, fake-indexeddb, FakeLocks standing in
 * for the browser's Web Locks (crash = the browser releasing a dead realm's locks).
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import { parseWorkerMessage } from "../../src/worker/parse-worker-message.ts";
import { PROTOCOL, STANDBY_LOCK_PREFIX, type WorkerMessage } from "../../src/worker/protocol.ts";

const API = "http://127.0.0.1:9/api/standby-asks";
let seq = 0;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function replica(locks: FakeLocks, workerName: string, host: Host): BrowserReplica {
  const r = createBrowserReplica({ locks: locks.forTab(workerName), lockName: workerName, fetch: host.fetch, store: { settleMs: 0 } });
  cleanups.push(() => r.destroy());
  return r;
}

type Port = { post: (m: unknown) => void; got: WorkerMessage[]; next: (t: string) => Promise<WorkerMessage> };

function portTo(r: BrowserReplica): Port {
  const channel = new MessageChannel();
  r.accept(channel.port2 as unknown as MessagePort);
  const got: WorkerMessage[] = [];
  const waiting: { t: string; resolve: (m: WorkerMessage) => void }[] = [];
  channel.port1.addEventListener("message", (event: MessageEvent) => {
    const msg = parseWorkerMessage(event.data);
    if (!msg) return;
    const all = msg.t === "batch" ? (msg.messages.map(parseWorkerMessage).filter(Boolean) as WorkerMessage[]) : [msg];
    for (const m of all) {
      got.push(m);
      for (const w of waiting.filter((x) => x.t === m.t)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  channel.port1.start();
  cleanups.push(() => channel.port1.close());
  return { post: (m) => channel.port1.postMessage(m), got, next: (t) => new Promise((resolve) => waiting.push({ t, resolve })) };
}

/** What the standby told the tab beyond `standing` (its lock, which the tab watches): answers to asks it must not send. */
const answers = (port: Port) => port.got.filter((m) => m.t !== "standing");

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
};
const ticks = (n = 20) => new Promise((r) => setTimeout(r, n));

/** Holds `name` for a tab realm `tag` (its lifetime lock) until that realm crashes. */
async function tabLock(locks: FakeLocks, tag: string, name: string): Promise<void> {
  await new Promise<void>((granted) => void locks.forTab(tag).request(name, {}, () => new Promise(() => granted())));
}

/** A live worker serving tab "host" and tab "t2", both asking for API (hung at the host), and the standby t2 started. */
async function scene(
  liveLocks?: (locks: FakeLocks, tag: string) => LockManagerLike,
  standbyLocks?: (locks: FakeLocks, tag: string) => LockManagerLike,
) {
  const host = new Host();
  const locks = new FakeLocks();
  const name = `sba-${process.pid}-${++seq}`;
  const config = { name, identity: "anonymous", browserId: "b1" };
  const ensure = { t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API, headers: { authorization: "Bearer s3cret" } } };
  const live = liveLocks
    ? createBrowserReplica({ locks: liveLocks(locks, `${name}:0`), lockName: `${name}:0`, fetch: host.fetch, store: { settleMs: 0 } })
    : replica(locks, `${name}:0`, host);
  cleanups.push(() => live.destroy());
  await tabLock(locks, "host", "lock-host");
  await tabLock(locks, "t2", "lock-t2");
  const hostTab = portTo(live);
  hostTab.post({ t: "hello", v: PROTOCOL, tab: "host", lock: "lock-host", config });
  hostTab.post(ensure);
  const t2 = portTo(live);
  t2.post({ t: "hello", v: PROTOCOL, tab: "t2", lock: "lock-t2", config });
  t2.post(ensure);
  const ready = (await t2.next("ready")) as Extract<WorkerMessage, { t: "ready" }>;
  await host.whenCalls(1);
  const standby = standbyLocks
    ? createBrowserReplica({ locks: standbyLocks(locks, `${name}:1`), lockName: `${name}:1`, fetch: host.fetch, store: { settleMs: 0 } })
    : replica(locks, `${name}:1`, host);
  cleanups.push(() => standby.destroy());
  const shadow = portTo(standby);
  shadow.post({ t: "standby", v: PROTOCOL, config, watch: ready.lock, lock: "lock-t2", replica: ready.replicaId });
  shadow.post(ensure);
  // The standby's store has the live worker's claim and waits on it for t2's ask.
  await until(() => standby.stores().length === 1 && standby.stores()[0]!.claims().length === 1);
  await until(() =>
    standby
      .stores()[0]!
      .inspect()
      .keys.some((k) => (k.local?.waiters ?? 0) > 0),
  );
  return { host, locks, name, config, ensure, live, hostTab, t2, standby, shadow };
}

/** Once the standby holds no waiter, the live worker dies: the standby must send nothing (1 request in all). */
async function diesAfterStandbyDropped(parts: Pick<Awaited<ReturnType<typeof scene>>, "host" | "locks" | "name" | "live" | "standby">) {
  const { host, locks, name, live, standby } = parts;
  await until(() =>
    standby
      .stores()[0]!
      .inspect()
      .keys.every((k) => (k.local?.waiters ?? 0) === 0),
  );
  locks.crash(`${name}:0`);
  locks.crash("host");
  live.destroy();
  await ticks(80);
  expect(host.calls.length).toBe(1);
}

describe("asks sent to the standby in advance", () => {
  it("while the live worker lives, the standby waits on them and sends nothing: 1 request, no claim of its own, no message to the tab", async () => {
    const { host, standby, shadow, live, name } = await scene();
    await ticks(50);
    expect(host.calls.length).toBe(1);
    const [key, claim] = standby.stores()[0]!.claims()[0]!;
    expect(claim.replicaId).toBe(live.stores()[0]!.replicaId);
    expect(key).toBe(standby.stores()[0]!.keyOf({ url: API, headers: { authorization: "Bearer s3cret" } }));
    // It only says it stands, naming the lock it holds for its life.
    expect(shadow.got).toEqual([{ t: "standing", lock: `${STANDBY_LOCK_PREFIX}${name}:1` }]);
    // The live worker answers: the standby's wait ends with the result it reads in its doc copy.
    host.calls[0]!.respond(200, { n: 1 });
    await until(() =>
      standby
        .stores()[0]!
        .inspect()
        .keys.every((k) => (k.local?.waiters ?? 0) === 0),
    );
    await ticks(30);
    expect(host.calls.length).toBe(1);
    expect(answers(shadow)).toEqual([]);
  });

  it("the host tab crashes and its worker with it: the standby sends the request before any tab's hello, and the re-sent asks join it (2 requests in all)", async () => {
    const { host, locks, name, config, ensure, live, shadow } = await scene();
    locks.crash(`${name}:0`);
    locks.crash("host");
    live.destroy();
    const calls = await host.whenCalls(2);
    expect(answers(shadow)).toEqual([]);
    // Its secrets crossed the port, never the doc (invariant 13): the request carries them.
    expect(calls[1]!.headers.authorization).toBe("Bearer s3cret");
    // The hello names the asks re-sent behind it: each waits in the store before its twin goes.
    shadow.post({ t: "hello", v: PROTOCOL, tab: "t2", lock: "lock-t2", config, resend: [1] });
    shadow.post(ensure);
    await ticks(30);
    calls[1]!.respond(200, { taken: "over" });
    const settled = await shadow.next("settled");
    expect(settled).toMatchObject({ id: 1, snap: { status: "success", data: { taken: "over" } } });
    await ticks(30);
    expect(host.calls.length).toBe(2);
  });

  it("the live worker's released lock says its stores died with it: the takeover does not wait for the grant of their replica locks", async () => {
    // The worker's own lock and the keys' locks are held by the realm that crashes; the store's
    // replica lock by a realm that does not (a grant that comes late, as behind the tabs' hellos).
    const split = (locks: FakeLocks, tag: string): LockManagerLike => {
      const worker = locks.forTab(tag);
      const late = locks.forTab(`${tag}-late`);
      return { request: (n, o, cb) => (n.startsWith("shared-fetch:replica:") ? late : worker).request(n, o, cb) };
    };
    const { host, locks, name, shadow } = await scene(split);
    locks.crash(`${name}:0`);
    locks.crash("host");
    const calls = await host.whenCalls(2);
    expect(calls).toHaveLength(2);
    expect(answers(shadow)).toEqual([]);
  });

  it("the standby queues for the key's lock while the live worker holds it: the dead worker's release grants it, no key lock is asked for at the takeover", async () => {
    const asked: { name: string; crashed: boolean }[] = [];
    let crashed = false;
    const counted = (locks: FakeLocks, tag: string): LockManagerLike => {
      const own = locks.forTab(tag);
      return { request: (n, o, cb) => (n.startsWith("shared-fetch:key:") && asked.push({ name: n, crashed }), own.request(n, o, cb)) };
    };
    const { host, locks, name, shadow } = await scene(undefined, counted);
    await until(() => asked.length === 1);
    await ticks(30);
    expect(host.calls.length).toBe(1);
    crashed = true;
    locks.crash(`${name}:0`);
    locks.crash("host");
    const calls = await host.whenCalls(2);
    expect(calls).toHaveLength(2);
    expect(asked).toEqual([{ name: expect.stringMatching(/^shared-fetch:key:/), crashed: false }]);
    expect(answers(shadow)).toEqual([]);
  });

  it("invariant 11: the tab that asked leaves (its lock released) before the worker dies: the standby drops its ask and sends nothing at the takeover", async () => {
    const { host, locks, name, live, standby } = await scene();
    locks.crash("t2");
    await diesAfterStandbyDropped({ host, locks, name, live, standby });
  });

  it("invariant 11: the tab withdraws its ask (abort) and then the worker dies: no request from the standby", async () => {
    const { host, locks, name, live, standby, shadow } = await scene();
    shadow.post({ t: "abort", id: 1 });
    await diesAfterStandbyDropped({ host, locks, name, live, standby });
  });

  it("an ask the standby gets before the live worker claims the key: its store queues for the key's lock but is never granted it, so the live worker's claim stands alone (1 request)", async () => {
    const host = new Host();
    const locks = new FakeLocks();
    const name = `sbk-${process.pid}-${++seq}`;
    const config = { name, identity: "anonymous", browserId: "b1" };
    const ensure = { t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } };
    const live = replica(locks, `${name}:0`, host);
    await tabLock(locks, "t2", "lock-t2");
    const t2 = portTo(live);
    t2.post({ t: "hello", v: PROTOCOL, tab: "t2", lock: "lock-t2", config });
    const ready = (await t2.next("ready")) as Extract<WorkerMessage, { t: "ready" }>;
    const standby = replica(locks, `${name}:1`, host);
    const shadow = portTo(standby);
    shadow.post({ t: "standby", v: PROTOCOL, config, watch: ready.lock, lock: "lock-t2" });
    shadow.post(ensure);
    await until(
      () =>
        standby.stores().length === 1 &&
        standby
          .stores()[0]!
          .inspect()
          .keys.some((k) => (k.local?.waiters ?? 0) > 0),
    );
    await ticks(50);
    expect(host.calls.length).toBe(0);
    expect(standby.stores()[0]!.claims()).toEqual([]);
    t2.post(ensure);
    await host.whenCalls(1);
    await until(() => standby.stores()[0]!.claims().length === 1);
    expect(standby.stores()[0]!.claims()[0]![1].replicaId).toBe(live.stores()[0]!.replicaId);
    await ticks(50);
    expect(host.calls.length).toBe(1);
    host.calls[0]!.respond(200, { n: 1 });
    expect(await t2.next("settled")).toMatchObject({ snap: { status: "success" } });
    await ticks(50);
    expect(host.calls.length).toBe(1);
  });
});
