/**
 * Random schedules of asks among the tabs of one browser (one lock manager, one tabs network) and
 * a second device, every replica with its own connection to a sync server (test/harness/
 * sim-socket.ts: connectPeers' sync clock and reconnect wait on a simulated server network). On top
 * of random-schedules-refetch.test.ts's asks, answers, crashes and reloads: sockets dropped and
 * reconnected by back-off, a device offline (connects refused) or its connects hung, then back;
 * asks while reconnecting (which wait for that sync, its failure or 2 s), pages frozen and shown
 * again (pagehide/pageshow, on each tab's own page), stores destroyed while they wait, and the
 * devtools' invalidate followed by ensures with a freshness demand.
 * Checked throughout: the tabs of the browser never have two requests of one key in flight at
 * once. At the end, with every link up and every socket synced: every ask of a live replica
 * settled within its bound (rejected only when withdrawn), nothing is pending, no key lock is
 * held, every live replica of both devices shows the same outcome for each key, and the host saw a
 * bounded number of requests.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { invalidateKey } from "../devtools/invalidate.ts";
import { SYNC_WAIT_MS } from "../src/core/connectors.ts";
import { createSharedFetchStore, type SharedFetchStoreWithExtras, type Snapshot } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";
import { tick, URL_A, useFakeClock } from "./harness/replicas.ts";
import { simSocket, type Link, type SimSocket } from "./harness/sim-socket.ts";
import { rng } from "./harness/rng.ts";

const KEYS = [0, 1].map((i) => ({ url: `${URL_A}/${i}` }));
const LEASE = 300;

type Store = SharedFetchStoreWithExtras;
type Replica = {
  tag: string;
  device: "d1" | "d2";
  store: Store;
  doc: Y.Doc;
  socket: SimSocket;
  /** Its own page: pagehide/pageshow reach this replica alone. */
  page: EventTarget;
  frozen: boolean;
};
type Ask = { promise: Promise<Snapshot>; controller: AbortController; tag: string; settled: boolean; rejected: boolean };

/** A store made on its own page (page-lifecycle.ts reads `window` and `document` when it is made). */
function onPage<T>(page: EventTarget, make: () => T): T {
  const g = globalThis as { window?: unknown; document?: unknown };
  g.window = page;
  g.document = page;
  try {
    return make();
  } finally {
    delete g.window;
    delete g.document;
  }
}

/** What the schedules covered, summed over the seeds (checked once they all ran). */
const covered = { reconnectWaits: 0, askedOutOfSync: 0, frozenWaiting: 0, destroyedWaiting: 0, invalidated: 0 };

async function schedule(seed: number, log: string[]): Promise<void> {
  const random = rng(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  const host = new Host();
  const locks = new FakeLocks();
  const tabsNet = new Network(0);
  const server = new Network(0);
  server.delayMs = Math.floor(random() * 4);
  const trip = 1 + Math.floor(random() * 10);
  const links: Record<Replica["device"], Link> = { d1: { mode: "up" }, d2: { mode: "up" } };
  const settleMs = random() < 0.5 ? 0 : 20;
  const replicas: Replica[] = [];
  const live = new Set<Replica>();
  const gone = new Set<string>();
  let n = 0;
  const join = (device: Replica["device"], from?: Y.Doc): Replica => {
    const tag = device === "d1" ? `t${++n}` : `p${++n}`;
    const doc = new Y.Doc();
    if (from) Y.applyUpdate(doc, Y.encodeStateAsUpdate(from));
    if (device === "d1") tabsNet.add(doc);
    const socket = simSocket(doc, server, links[device], () => trip);
    const page = new EventTarget();
    const lockManager = device === "d1" ? locks.forTab(tag) : new FakeLocks().forTab(tag);
    const store = onPage(page, () =>
      createSharedFetchStore({
        doc,
        replicaId: tag,
        fetch: host.fetchAs(tag),
        leaseMs: LEASE,
        settleMs,
        locks: lockManager,
        browserId: device === "d1" ? "browser-1" : `browser-${tag}`,
      }),
    );
    KEYS.forEach((k) => store.subscribe(k, () => {}));
    const r: Replica = { tag, device, store, doc, socket, page, frozen: false };
    replicas.push(r);
    live.add(r);
    return r;
  };
  for (let i = 0; i < 2 + Math.floor(random() * 2); i++) join("d1");
  join("d2");
  if (random() < 0.3) join("d2");

  const asks: Ask[] = [];
  const ask = (r: Replica, what: string, run: (signal: AbortSignal) => Promise<Snapshot>) => {
    const controller = new AbortController();
    const a: Ask = { promise: run(controller.signal), controller, tag: r.tag, settled: false, rejected: false };
    a.promise.then(
      () => (a.settled = true),
      () => ((a.settled = true), (a.rejected = true)),
    );
    asks.push(a);
    if (r.socket.state !== "synced") covered.askedOutOfSync++;
    log.push(`${r.tag} ${what}`);
  };
  const check = () => {
    for (const { url } of KEYS) {
      const running = host.calls.filter(
        (call) => call.state === "in-flight" && call.url === url && call.from?.startsWith("t") && !gone.has(call.from),
      );
      expect(
        running.map((call) => call.from),
        `seed ${seed}: two requests of ${url} in flight in one browser\n${log.join("\n")}`,
      ).toHaveLength(Math.min(running.length, 1));
    }
    for (const r of live) {
      if (r.device !== "d1") continue;
      // Its requests run under the key's Web Lock, and its claims name its browser: the other
      // tabs watch them by its replica lock (a claim naming none is judged by its lease alone).
      const keys = locks.heldBy(r.tag).filter((name) => name.startsWith("shared-fetch:key:"));
      for (const call of host.calls.filter((c) => c.from === r.tag && c.state === "in-flight")) {
        const key = r.store.keyOf({ url: call.url });
        expect(
          keys.filter((name) => name.endsWith(key)),
          `seed ${seed}: ${r.tag} sends ${call.url} without its lock\n${log.join("\n")}`,
        ).toHaveLength(1);
      }
      for (const [key, claim] of internalsOf(r.store).records.claims.entries())
        if (claim.replicaId === r.tag)
          expect(claim.browserId, `seed ${seed}: ${r.tag}'s claim of ${key} names no browser\n${log.join("\n")}`).toBe("browser-1");
    }
  };
  const setLink = (device: Replica["device"], mode: Link["mode"]) => {
    links[device].mode = mode;
    log.push(`${device} link ${mode}`);
    for (const r of live) if (r.device === device) r.socket.linkChanged();
    // Down: every socket of the device closes.
    if (mode === "down") for (const r of live) if (r.device === device) r.socket.drop();
  };
  const freeze = (r: Replica, frozen: boolean) => {
    r.frozen = frozen;
    if (frozen && r.store.inspect().lifecycle === "starting") covered.frozenWaiting++;
    log.push(`${r.tag} ${frozen ? "frozen" : "shown"}`);
    r.page.dispatchEvent(frozen ? new Event("pagehide") : Object.assign(new Event("pageshow"), { persisted: true }));
  };
  const end = (r: Replica) => {
    r.socket.stop();
    tabsNet.remove(r.doc);
    server.remove(r.doc);
    gone.add(r.tag);
    live.delete(r);
  };

  let asked = 0;
  for (let step = 0; step < 20; step++) {
    const r = pick([...live]);
    const req = pick(KEYS);
    const x = random();
    const tabs = [...live].filter((t) => t.device === "d1");
    if (x < 0.12) {
      asked++;
      ask(r, `ensure ${req.url.slice(-1)}`, (signal) => r.store.ensure(req, { signal }));
    } else if (x < 0.24) {
      asked++;
      const skipInFlight = random() < 0.5;
      ask(r, `refetch ${req.url.slice(-1)}${skipInFlight ? " skipInFlight" : ""}`, (signal) =>
        r.store.refetch(req, { signal, skipInFlight }),
      );
    } else if (x < 0.3) {
      // The devtools' invalidate, then the replicas showing the key ask with a freshness demand.
      asked += 2;
      log.push(`${r.tag} invalidate ${req.url.slice(-1)}`);
      if (invalidateKey(r.store, r.store.keyOf(req)).ok) covered.invalidated++;
      ask(r, `ensure maxAge ${req.url.slice(-1)}`, (signal) => r.store.ensure(req, { signal, maxAgeMs: LEASE }));
      const other = pick([...live]);
      ask(other, `ensure maxAge ${req.url.slice(-1)}`, (signal) => other.store.ensure(req, { signal, maxAgeMs: LEASE }));
    } else if (x < 0.36 && asks.some((a) => !a.settled)) {
      log.push("withdraw");
      pick(asks.filter((a) => !a.settled)).controller.abort();
    } else if (x < 0.52 && host.open.length) {
      const call = pick(host.open);
      const ok = random() < 0.8;
      log.push(`answer ${call.from} ${call.url.slice(-1)} ${ok ? 200 : 500}`);
      if (ok) call.respond(200, { step, from: call.from });
      else call.respond(500, "no");
    } else if (x < 0.62) {
      log.push(`${r.tag} socket drop`);
      r.socket.drop();
    } else if (x < 0.7) {
      const device = pick(["d1", "d2"] as const);
      setLink(device, links[device].mode === "up" ? (random() < 0.7 ? "down" : "hang") : "up");
    } else if (x < 0.77 && r.device === "d1") {
      freeze(r, !r.frozen);
    } else if (x < 0.83 && tabs.length > 2) {
      // A tab crashes (the browser frees its locks) and reloads on what it persisted.
      const t = pick(tabs);
      log.push(`${t.tag} crash`);
      internalsOf(t.store).dev.crash();
      locks.crash(t.tag);
      end(t);
      join("d1", t.doc);
    } else if (x < 0.9 && tabs.length > 2) {
      // Destroyed, preferably while it waits for a sync.
      const starting = tabs.filter((t) => t.store.inspect().lifecycle === "starting");
      const t = pick(starting.length ? starting : tabs);
      log.push(`${t.tag} destroy (${t.store.inspect().lifecycle})`);
      if (starting.length) covered.destroyedWaiting++;
      t.store.destroy();
      end(t);
    }
    await tick(Math.floor(random() * LEASE));
    check();
  }

  // Every link up, every page shown, every hung connect given up; the host answers from now on.
  log.push("end");
  for (const device of ["d1", "d2"] as const) {
    if (links[device].mode === "hang") setLink(device, "down");
    setLink(device, "up");
  }
  for (const r of live) if (r.frozen) freeze(r, false);
  // A connect hung while the link hung stays so after it came back, until the socket times out.
  for (const r of live) if (r.socket.state === "connecting") r.socket.drop();
  for (const r of live) r.socket.connect();
  host.auto = () => ({ status: 200, body: { final: true } });
  for (const call of host.open) if (!gone.has(call.from!)) call.respond(200, { final: true });
  // Bound: a reconnect's wait (2 s at most), then a lease for a dead claimant, a settle window and trips.
  const mine = asks.filter((a) => !gone.has(a.tag));
  const bound = SYNC_WAIT_MS + 3 * LEASE + 500;
  for (let waited = 0; waited < bound && mine.some((a) => !a.settled); waited += 50) {
    await tick(50);
    check();
  }
  const context = `seed ${seed}\n${log.join("\n")}`;
  expect(mine.filter((a) => !a.settled).length, `${context}\nan ask never settled within ${bound} ms`).toBe(0);
  await tick(4 * LEASE);
  expect(
    [...live].map((r) => r.socket.state),
    `${context}\nsockets not synced`,
  ).toEqual([...live].map(() => "synced"));
  expect(mine.filter((a) => a.rejected && !a.controller.signal.aborted).length, `${context}\nrejected unasked`).toBe(0);
  for (const k of KEYS) {
    const shown = [...live].map((r) => {
      const s = r.store.snapshot(k);
      return `${r.tag}: ${s.status} ${JSON.stringify(s.data)}${s.error ? ` ${s.error.message}` : ""}`;
    });
    for (const line of shown) expect(line, `${context}\nstill pending`).not.toMatch(/: pending/);
    const outcomes = new Set(shown.map((line) => line.slice(line.indexOf(":"))));
    expect(outcomes.size, `${context}\ntwo outcomes shown for ${k.url}:\n${shown.join("\n")}`).toBe(1);
  }
  const { held = [] } = await locks.forTab("probe").query();
  expect(
    held.map(({ name = "" }) => name).filter((name) => name.startsWith("shared-fetch:key:")),
    `${context}\na key lock held`,
  ).toEqual([]);
  expect(host.calls.length, `${context}\nrequests`).toBeLessThanOrEqual(3 * asked + 8);
  for (const r of replicas) {
    covered.reconnectWaits += r.socket.waits;
    r.store.destroy();
    r.socket.stop();
  }
  tabsNet.destroy();
  server.destroy();
}

describe("random schedules: reconnects, freezes and destroys among tabs of one browser and another device", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());
  afterAll(() => {
    // The schedules reached what they are for: claims waiting for reconnects, frozen and destroyed meanwhile.
    for (const [what, count] of Object.entries(covered)) expect(count, `${what}: ${JSON.stringify(covered)}`).toBeGreaterThan(0);
  });

  // SCHEDULE_SEEDS for a soak; SCHEDULE_FROM to replay from a seed.
  const seeds = Number(process.env.SCHEDULE_SEEDS ?? 200);
  const from = Number(process.env.SCHEDULE_FROM ?? 1);
  const PER_TEST = 50;
  for (let first = from; first < from + seeds; first += PER_TEST) {
    const last = Math.min(first + PER_TEST, from + seeds) - 1;
    it(`seeds ${first}–${last}`, async () => {
      for (let seed = first; seed <= last; seed++) await schedule(seed, []);
    }, 120_000);
  }
});
