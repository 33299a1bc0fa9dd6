/**
 * `npm run bench:cluster`: 50 peers (in-process providers, this process) ask for 100 keys at once,
 * through the Hocuspocus cluster (2 instances on Redis + Postgres, peers alternating between them)
 * and, in the same run, through one y-websocket server; once with the default settle window and
 * once with a larger one. Every server and the counting HTTP host run in processes of their own,
 * so the peers' busy event loop delays only the peers. Figures per contender and window: requests
 * per key (counted at the host), time to data per (peer, key) from its ask (median, p95), and the
 * claim round trip from one peer to another, under the burst and while the room is quiet.
 * JSON lines on stdout (../shared/BENCH.md), progress on stderr; asserts nothing.
 * PEERS (50), KEYS (100), RUNS (3), SETTLE_MS (comma list, default "100,1000"), PROBES (5).
 */
import { cpus, loadavg } from "node:os";
import { DEFAULT_SETTLE_MS } from "../src/index.ts";
import { startCluster } from "../server/cluster/cluster.ts";
import { startSyncServer } from "../test/sync/ws-server.ts";
import { startHostProcess } from "./cluster-host.ts";
import { startWatcher } from "./cluster-watcher.ts";
import type { Contender } from "./cluster-peers.ts";
import { runOnce, type Sample } from "./cluster-run.ts";

function positiveInts(name: string, fallback: string, min = 1): number[] {
  const raw = process.env[name] ?? fallback;
  const values = raw.split(",").map((s) => Number(s.trim()));
  if (values.length === 0 || values.some((n) => !Number.isInteger(n) || n < min))
    throw new Error(`bench:cluster: ${name} must be ${min === 0 ? "non-negative" : "positive"} integers separated by commas, got "${raw}"`);
  return values;
}
const one = (name: string, fallback: string, min = 1): number => positiveInts(name, fallback, min)[0]!;
const PEERS = one("PEERS", "50", 2);
const KEYS = one("KEYS", "100");
const RUNS = one("RUNS", "3");
const PROBES = one("PROBES", "5");
const SETTLES = positiveInts("SETTLE_MS", `${DEFAULT_SETTLE_MS},1000`, 0);
const CONTENDERS: Contender[] = ["hocuspocus-cluster", "y-websocket"];

type Figure = { figure: string; unit: string; of: (s: Sample) => number };
const FIGURES: Figure[] = [
  { figure: "requests per key", unit: "requests", of: (s) => s.requestsPerKey },
  { figure: "most requests for one key", unit: "requests", of: (s) => s.maxPerKey },
  { figure: "keys requested more than once", unit: "keys", of: (s) => s.duplicatedKeys },
  { figure: "time to data, median over peers and keys", unit: "ms", of: (s) => s.timeToDataMedian },
  { figure: "time to data, p95 over peers and keys", unit: "ms", of: (s) => s.timeToDataP95 },
  { figure: "claim trip during the burst, median over claims and observers", unit: "ms", of: (s) => s.burstTripMedian },
  { figure: "claim trip during the burst, p95 over claims and observers", unit: "ms", of: (s) => s.burstTripP95 },
  { figure: "claim trips during the burst longer than the settle window", unit: "%", of: (s) => s.burstTripsLate },
  { figure: "claim trip in a quiet room, median over observers", unit: "ms", of: (s) => s.idleTripMedian },
  { figure: "claim trip in a quiet room, slowest observer", unit: "ms", of: (s) => s.idleTripMax },
  { figure: "claim trip during the burst to a peer in its own process, median", unit: "ms", of: (s) => s.wireBurstMedian },
  { figure: "claim trip during the burst to a peer in its own process, p95", unit: "ms", of: (s) => s.wireBurstP95 },
  { figure: "claim trip in a quiet room to a peer in its own process, median", unit: "ms", of: (s) => s.wireIdleMedian },
  {
    figure: "claim trip across instances during the burst to a peer in its own process, median",
    unit: "ms",
    of: (s) => s.acrossBurstMedian,
  },
  { figure: "claim trip across instances in a quiet room to a peer in its own process, median", unit: "ms", of: (s) => s.acrossIdleMedian },
  { figure: "event-loop delay of the peers' process during the burst, p99", unit: "ms", of: (s) => s.loopDelayP99 },
];

const round = (n: number): number => Math.round(n * 100) / 100;
function emit(figure: Figure, contender: Contender, settleMs: number, samples: Sample[]): void {
  // Runs without a sample of this figure (one server has no "across") do not count in `runs`.
  const values = samples
    .map(figure.of)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (values.length === 0) return;
  const mid = values.length / 2;
  const median = Number.isInteger(mid) ? (values[mid - 1]! + values[mid]!) / 2 : values[Math.floor(mid)]!;
  const params = { peers: PEERS, keys: KEYS, instances: contender === "y-websocket" ? 1 : 2, settleMs };
  const line = { figure: figure.figure, contender, params, value: round(median), unit: figure.unit, runs: values.length };
  console.log(JSON.stringify({ ...line, min: round(values[0]!), max: round(values.at(-1)!) }));
}

// Every y-websocket provider adds a process "exit" listener (and removes it on destroy): 50 of
// them are expected here, not a leak.
process.setMaxListeners(PEERS + 20);

const fmt = (l: number[]): string => l.map((n) => n.toFixed(2)).join(" ");
const loadAtStart = loadavg();
const host = await startHostProcess();
const cluster = await startCluster();
const ws = await startSyncServer();
const watcher = startWatcher();
const servers = { cluster, ws };
try {
  // Warm-up: JIT, connection paths, first rooms of each server. Not reported.
  for (const contender of CONTENDERS) {
    const s = await runOnce(
      { contender, settleMs: SETTLES[0]!, peers: PEERS, keys: 10, probes: 1, label: "warmup" },
      servers,
      host,
      watcher,
    );
    console.error(`  warm-up ${contender}: ${JSON.stringify(s)}`);
  }
  const samples = new Map<string, Sample[]>();
  for (let run = 0; run < RUNS; run++) {
    for (const [w, settleMs] of SETTLES.entries()) {
      // Alternate the order so that neither contender always runs second (on a warmer or busier machine).
      const order = (run + w) % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse();
      for (const contender of order) {
        const spec = { contender, settleMs, peers: PEERS, keys: KEYS, probes: PROBES, label: `run${run}` };
        const s = await runOnce(spec, servers, host, watcher);
        const id = `${contender} ${settleMs}`;
        samples.set(id, [...(samples.get(id) ?? []), s]);
        console.error(`  run ${run + 1}/${RUNS} ${contender} settleMs ${settleMs}: ${JSON.stringify(s)}`);
      }
    }
  }
  const loads = [...samples.values()].flat().map((s) => s.load);
  console.log(
    `env: node ${process.version}, ${cpus().length} cpus (${cpus()[0]?.model.trim()}), load average ${fmt(loadAtStart)} at start, ` +
      `${fmt(loadavg())} at end (1 min: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} over the runs); ` +
      `${PEERS} peers × ${KEYS} keys asked at once, ${RUNS} runs, ${PROBES} quiet-room probes per run; the peers in this process; ` +
      `counting host, y-websocket server, 2 Hocuspocus 3.4.4 instances, Redis and PostgreSQL one process each, on 127.0.0.1`,
  );
  for (const settleMs of SETTLES)
    for (const contender of CONTENDERS)
      for (const figure of FIGURES) emit(figure, contender, settleMs, samples.get(`${contender} ${settleMs}`)!);
} finally {
  await watcher.close();
  await ws.close();
  await cluster.stop();
  await host.close();
}
