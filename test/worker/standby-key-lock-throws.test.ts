/**
 * A standby worker's store asks for the keys' locks through the key-lock gate, which holds them
 * back until promotion (or queues one in advance behind the live worker that holds it). Where the
 * worker's `locks` throws from `request` at once instead of rejecting (a hand-written wrapper, a
 * polyfill that checks its origin first), that is a refusal, as it is for the store itself
 * (test/locks-throw-sync.test.ts), given at promotion as a rejection is: the store then claims by
 * its settle window. It threw out of the gate instead: out of the promotion at the live worker's
 * death, which stopped half-way and left the held-back request unsettled (the key pending for
 * good, invariant 8); out of `arm` (an uncaught error in the worker: judge-claims.ts arms it in a
 * microtask); and out of a request queued in advance as it was made, refused to the idle store
 * before promotion and left awaited for good. Real ports, docs and stores; FakeLocks behind a
 * front that throws for the standby's key locks.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { keyLockGate } from "../../src/worker/key-lock-gate.ts";
import { PROTOCOL, type WorkerMessage } from "../../src/worker/protocol.ts";
import { drain, poll, portTo, replica } from "./standby-harness.ts";

const API = "http://127.0.0.1:9/api/standby-key-lock-throws";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The browser's locks for `tag`, but a key lock's request throws at once. */
const throwingKeys = (locks: FakeLocks, tag: string): LockManagerLike => {
  const real = locks.forTab(tag);
  return {
    query: () => real.query(),
    request: (name, options, callback) => {
      if (name.startsWith("shared-fetch:key:")) throw new DOMException("The request was denied.", "SecurityError");
      return real.request(name, options, callback);
    },
  };
};

/** A live worker serving tab t2, and a standby (key locks that throw) that t2 sent an ask in advance, held back at its key lock. */
async function scene() {
  const warns = vi.spyOn(console, "warn").mockImplementation(() => {});
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
  cleanups.push(() => (process.off("uncaughtException", onUncaught), process.off("unhandledRejection", onUncaught), warns.mockRestore()));
  const host = new Host();
  const locks = new FakeLocks();
  const name = `sklt-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const config = { name, identity: "anonymous", browserId: "b1" };
  const ensure = { t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } };
  const live = replica(cleanups, locks, `${name}:0`, host);
  await new Promise<void>((granted) => void locks.forTab("t2").request("lock-t2", {}, () => new Promise(() => granted())));
  const t2 = portTo(cleanups, live);
  t2.post({ t: "hello", v: PROTOCOL, tab: "t2", lock: "lock-t2", config });
  const ready = (await t2.next("ready")) as Extract<WorkerMessage, { t: "ready" }>;
  const standby = createBrowserReplica({
    locks: throwingKeys(locks, `${name}:1`),
    lockName: `${name}:1`,
    fetch: host.fetch,
    store: { settleMs: 0 },
  });
  cleanups.push(() => standby.destroy());
  const shadow = portTo(cleanups, standby);
  shadow.post({ t: "standby", v: PROTOCOL, config, watch: ready.lock, lock: "lock-t2", replica: ready.replicaId });
  shadow.post(ensure);
  // Its store asked for the key's lock: no claim stands, so the gate holds it back without asking.
  const locking = () =>
    standby
      .stores()[0]
      ?.inspect()
      .keys.some((k) => k.local?.attempt?.phase === "locking");
  await poll(() => locking() === true);
  return { host, locks, name, config, ensure, live, shadow, uncaught };
}

it("invariant 8: a key lock held back by a standby whose locks throw is refused at promotion, and the promoted standby answers the ask", async () => {
  const { host, locks, name, config, ensure, live, shadow, uncaught } = await scene();
  // The live worker dies; the tab says hello to the standby, re-sending its ask.
  locks.crash(`${name}:0`);
  live.destroy();
  shadow.post({ t: "hello", v: PROTOCOL, tab: "t2", lock: "lock-t2", config, resend: [1] });
  shadow.post(ensure);
  const [call] = await host.whenCalls(1);
  call!.respond(200, { taken: "over" });
  expect(await shadow.next("settled")).toMatchObject({ id: 1, snap: { status: "success", data: { taken: "over" } } });
  expect(uncaught).toEqual([]);
});

const KEY = "shared-fetch:key::k1";

it("the gate's arm: a request queued in advance whose manager throws is held back as a refused one is, and refused at promotion", async () => {
  let liveHolds = false;
  const gate = keyLockGate(throwingKeys(new FakeLocks(), "standby"), () => liveHolds);
  const held = gate.locks.request(KEY, { mode: "exclusive" }, () => "claimed");
  held.catch(() => {});
  // The live worker's claim arrives: the store's judgment arms the gate (judge-claims.ts).
  liveHolds = true;
  expect(() => gate.arm()).not.toThrow();
  await drain();
  expect(gate.parked).toBe(1);
  expect(() => gate.open()).not.toThrow();
  await expect(held).rejects.toThrow("The request was denied.");
  await gate.granted();
});

it("the gate: a request queued in advance as it is made, its manager throwing, is refused at promotion and leaves no grant awaited", async () => {
  const gate = keyLockGate(throwingKeys(new FakeLocks(), "standby"), () => true);
  let settled = false;
  const held = gate.locks.request(KEY, { mode: "exclusive" }, () => "claimed");
  held.catch(() => {}).finally(() => (settled = true));
  await drain();
  expect(settled).toBe(false);
  gate.open();
  await expect(held).rejects.toThrow("The request was denied.");
  // Persisting a promoted warm standby's doc waits for this (browser-standby.ts).
  await gate.granted();
});
