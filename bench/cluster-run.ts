import { monitorEventLoopDelay } from "node:perf_hooks";
import { loadavg } from "node:os";
import type { HostProcess } from "./cluster-host.ts";
import type { Watcher } from "./cluster-watcher.ts";
import { ClaimTrips } from "./cluster-trips.ts";
import { closePeers, openPeers, whenAllPresent, whenDocsQuiet, type Contender, type Servers } from "./cluster-peers.ts";

/** One run's figures (times in ms). */
export type Sample = {
  requestsPerKey: number;
  maxPerKey: number;
  /** Keys that were requested more than once. */
  duplicatedKeys: number;
  timeToDataMedian: number;
  timeToDataP95: number;
  /** Claim trips (claimant's claim → another peer's doc holds it) while all peers ask at once. */
  burstTripMedian: number;
  burstTripP95: number;
  /** Share of those trips longer than the settle window, in percent. */
  burstTripsLate: number;
  /** One claim in a quiet room, to each of the other peers. */
  idleTripMedian: number;
  idleTripMax: number;
  /** The same trips to a peer in a process of its own (the wire: claimant, server, relay), median and p95. */
  wireBurstMedian: number;
  wireBurstP95: number;
  wireIdleMedian: number;
  /** Hocuspocus only: trips of claims made on the other instance (through Redis) to that peer; NaN for one server. */
  acrossBurstMedian: number;
  acrossIdleMedian: number;
  /** Event-loop delay of this (the peers') process during the burst, p99. */
  loopDelayP99: number;
  /** 1-minute load average when the run started. */
  load: number;
};

export type RunSpec = { contender: Contender; settleMs: number; peers: number; keys: number; probes: number; label: string };

export const quantile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(5);
  }
}

function withDeadline<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * One run in a fresh room: every peer connected, synced and seeing every other one, the room
 * quiet; then `probes` lone claims one after the other (idle trips); then every peer asks for
 * every key in the same synchronous loop, each ask timed from its own call to its data.
 * Requests are counted in the host process.
 */
export async function runOnce(spec: RunSpec, servers: Servers, host: HostProcess, watcher: Watcher): Promise<Sample> {
  const { contender, settleMs, peers: count, keys, probes, label } = spec;
  const room = `bench-${contender.replace(/\W/g, "")}-${settleMs}-${label}-${Math.random().toString(36).slice(2)}`;
  const load = loadavg()[0]!;
  // The watcher sits on instance 0; peers of odd index start on instance 1 (openPeers).
  const watcherUrl = contender === "y-websocket" ? servers.ws.url : servers.cluster.urls[0]!;
  await watcher.join({ contender, url: watcherUrl, room, token: servers.cluster.token(room) });
  const peers = openPeers(contender, servers, room, count, settleMs);
  const trips = new ClaimTrips(peers);
  const across = new Set(contender === "y-websocket" ? [] : peers.filter((_, i) => i % 2 === 1).map((p) => p.doc.clientID));
  try {
    await whenAllPresent(peers);
    if (!(await whenDocsQuiet(peers))) console.error(`  ${label}: the room never went quiet before the asks (15 s)`);

    for (let j = 0; j < probes; j++) {
      const claimant = peers[(j * 7) % peers.length]!;
      const snapshot = await withDeadline("a probe", claimant.store.ensure({ url: host.url(`/${room}/probe/${j}`) }), 30_000);
      if (snapshot.status !== "success") throw new Error(`${contender}: a probe ended ${snapshot.status}: ${snapshot.error?.message}`);
      await until("every peer holding the probe's claim", () => (trips.trips.get("idle")?.length ?? 0) >= (j + 1) * (count - 1), 30_000);
    }

    trips.phase = "burst";
    const paths = Array.from({ length: keys }, (_, k) => `/${room}/items/${k}`);
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const errors: string[] = [];
    const asks: Promise<number>[] = [];
    for (const p of peers) {
      for (const path of paths) {
        const askedAt = performance.now();
        asks.push(
          p.store.ensure({ url: host.url(path) }).then((snapshot) => {
            if (snapshot.status !== "success") errors.push(`${snapshot.status}: ${snapshot.error?.message}`);
            return performance.now() - askedAt;
          }),
        );
      }
    }
    const times = (await withDeadline(`${contender}: the asks`, Promise.all(asks), 600_000)).sort((a, b) => a - b);
    loop.disable();
    if (errors.length > 0) throw new Error(`${contender}: ${errors.length} of ${times.length} asks ended without data, e.g. ${errors[0]}`);
    await whenDocsQuiet(peers); // the losers' claims still travelling
    const counted = await host.counts(`/${room}/items/`);
    const perKey = paths.map((path) => counted.get(path) ?? 0);
    const burst = trips.sorted("burst");
    const idle = trips.sorted("idle");
    const log = await watcher.log();
    const wireBurst = trips.tripsToLog(log, "burst");
    const acrossBurst = trips.tripsToLog(log, "burst", (id) => across.has(id));
    const acrossIdle = trips.tripsToLog(log, "idle", (id) => across.has(id));
    if (trips.overheadMs > 0.05 * times.at(-1)!) console.error(`  ${label}: claim-trip bookkeeping took ${trips.overheadMs.toFixed(0)} ms`);
    return {
      requestsPerKey: perKey.reduce((a, b) => a + b, 0) / keys,
      maxPerKey: Math.max(...perKey),
      duplicatedKeys: perKey.filter((n) => n > 1).length,
      timeToDataMedian: quantile(times, 0.5),
      timeToDataP95: quantile(times, 0.95),
      burstTripMedian: quantile(burst, 0.5),
      burstTripP95: quantile(burst, 0.95),
      burstTripsLate: (100 * burst.filter((t) => t > settleMs).length) / burst.length,
      idleTripMedian: quantile(idle, 0.5),
      idleTripMax: idle.at(-1) ?? NaN,
      wireBurstMedian: quantile(wireBurst, 0.5),
      wireBurstP95: quantile(wireBurst, 0.95),
      wireIdleMedian: quantile(trips.tripsToLog(log, "idle"), 0.5),
      acrossBurstMedian: quantile(acrossBurst, 0.5),
      acrossIdleMedian: quantile(acrossIdle, 0.5),
      loopDelayP99: loop.percentile(99) / 1e6,
      load,
    };
  } finally {
    trips.stop();
    closePeers(peers);
    await watcher.leave();
  }
}
