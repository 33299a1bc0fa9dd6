/**
 * Random schedules of explicit refetches among tabs of one browser (one lock manager) and a peer
 * of another: asks, refetches and skipInFlight refetches (two in one task, as two panes do), asks
 * withdrawn, odd answers, tabs crashed (their locks freed, as the browser does) or destroyed, and
 * reloads. Checked throughout: the tabs of the browser never have two requests of one key in
 * flight at once (the key's Web Lock passes along a chain of replaced requests, never to another
 * tab in between). At the end, everything answered: every ask of a live tab settled (rejected only
 * when withdrawn), nothing is pending, no key lock is held, and the host saw a bounded number of
 * requests.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Snapshot } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import { cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";
import { rng } from "./harness/rng.ts";

const KEYS = [0, 1].map((i) => ({ url: `${URL_A}/${i}` }));
const LEASE = 300;

type Ask = { promise: Promise<Snapshot>; controller: AbortController; tag: string; settled: boolean; rejected: boolean };

async function schedule(seed: number): Promise<void> {
  const random = rng(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  const locks = new FakeLocks();
  const c = cluster(0, { leaseMs: LEASE, settleMs: random() < 0.5 ? 0 : 20 });
  c.net.delayMs = Math.floor(random() * 4);
  type Store = (typeof c.stores)[number];
  const tags = new Map<Store, string>();
  const live = new Set<Store>();
  let n = 0;
  const tab = (from?: Store) => {
    const tag = `t${++n}`;
    const s = c.join({ locks: locks.forTab(tag), browserId: "browser-1", fetch: c.host.fetchAs(tag) }, from && c.docOf(from));
    tags.set(s, tag);
    live.add(s);
    KEYS.forEach((k) => s.subscribe(k, () => {}));
    return s;
  };
  for (let i = 0; i < 2 + Math.floor(random() * 2); i++) tab();
  if (random() < 0.5) {
    const peer = c.join({ locks: new FakeLocks().forTab("peer"), browserId: "browser-2", fetch: c.host.fetchAs("peer") });
    tags.set(peer, "peer");
    live.add(peer);
  }
  const asks: Ask[] = [];
  const ask = (s: Store, run: (signal: AbortSignal) => Promise<Snapshot>) => {
    const controller = new AbortController();
    const a: Ask = { promise: run(controller.signal), controller, tag: tags.get(s)!, settled: false, rejected: false };
    a.promise.then(
      () => (a.settled = true),
      () => ((a.settled = true), (a.rejected = true)),
    );
    asks.push(a);
  };
  const gone = new Set<string>();
  const check = () => {
    for (const { url } of KEYS) {
      const running = c.host.calls.filter(
        (call) => call.state === "in-flight" && call.url === url && call.from !== "peer" && !gone.has(call.from!),
      );
      expect(
        running.map((call) => call.from),
        `seed ${seed}: two requests of ${url} in flight in one browser`,
      ).toHaveLength(Math.min(running.length, 1));
    }
  };
  let asked = 0;
  for (let step = 0; step < 16; step++) {
    const store = pick([...live]);
    const req = pick(KEYS);
    const r = random();
    if (r < 0.15) {
      asked++;
      ask(store, (signal) => store.ensure(req, { signal }));
    } else if (r < 0.3) {
      asked++;
      ask(store, (signal) => store.refetch(req, { signal, skipInFlight: random() < 0.5 }));
    } else if (r < 0.4) {
      // Two panes refetch in one task.
      asked += 2;
      ask(store, (signal) => store.refetch(req, { signal, skipInFlight: true }));
      ask(store, (signal) => store.refetch(req, { signal, skipInFlight: true }));
    } else if (r < 0.5 && asks.some((a) => !a.settled)) pick(asks.filter((a) => !a.settled)).controller.abort();
    else if (r < 0.75 && c.host.open.length) {
      const call = pick(c.host.open);
      if (random() < 0.8) call.respond(200, { step });
      else call.respond(500, "no");
    } else if (r < 0.82 && live.size > 2 && tags.get(store) !== "peer") {
      // A tab crashes: the browser frees its locks; a reload opens on what it persisted.
      const tag = tags.get(store)!;
      internalsOf(store).dev.crash();
      locks.crash(tag);
      c.crash(store);
      gone.add(tag);
      live.delete(store);
      tab(store);
    } else if (r < 0.86 && live.size > 2 && tags.get(store) !== "peer") {
      store.destroy();
      gone.add(tags.get(store)!);
      live.delete(store);
    }
    await tick(Math.floor(random() * LEASE));
    check();
  }
  c.host.auto = () => ({ status: 200, body: { final: true } });
  for (const call of c.host.open) if (!gone.has(call.from!)) call.respond(200, { final: true });
  const mine = asks.filter((a) => !gone.has(a.tag));
  for (let i = 0; i < 60 && mine.some((a) => !a.settled); i++) {
    await tick(100);
    check();
  }
  await tick(4 * LEASE);
  expect(mine.filter((a) => !a.settled).length, `seed ${seed}: an ask never settled`).toBe(0);
  expect(mine.filter((a) => a.rejected && !a.controller.signal.aborted).length, `seed ${seed}: rejected unasked`).toBe(0);
  for (const s of live) for (const k of KEYS) expect(s.snapshot(k).status, `seed ${seed}: still pending`).not.toBe("pending");
  const { held = [] } = await locks.forTab("probe").query();
  expect(
    held.map(({ name = "" }) => name).filter((name) => name.startsWith("shared-fetch:key:")),
    `seed ${seed}: a key lock held`,
  ).toEqual([]);
  expect(c.host.calls.length, `seed ${seed}: requests`).toBeLessThanOrEqual(3 * asked + 8);
  c.destroy();
}

describe("random schedules: refetches among tabs of one browser and a peer", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  // SCHEDULE_SEEDS for a soak; SCHEDULE_FROM to replay from a seed.
  const seeds = Number(process.env.SCHEDULE_SEEDS ?? 200);
  const from = Number(process.env.SCHEDULE_FROM ?? 1);
  const PER_TEST = 50;
  for (let first = from; first < from + seeds; first += PER_TEST) {
    const last = Math.min(first + PER_TEST, from + seeds) - 1;
    it(`seeds ${first}–${last}`, async () => {
      for (let seed = first; seed <= last; seed++) await schedule(seed);
    }, 120_000);
  }
});
