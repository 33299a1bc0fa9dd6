/**
 * `npm run bench:cluster`: 50 peers (in-process providers, one Node process) ask for 100 keys at
 * once, through the Hocuspocus cluster (2 instances on Redis + Postgres, peers spread over both)
 * and, in the same run, through one y-websocket server. Figures: host requests per key, and time
 * to data (from the moment all peers ask to the moment each peer's `ensure` resolves: median, p95).
 * Prints one JSON line per figure (../shared/BENCH.md); asserts nothing. RUNS (default 3).
 */
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, type Connection } from "../src/index.ts";
import { connectHocuspocus } from "../src/hocuspocus/index.ts";
import { startCluster, type Cluster } from "../server/cluster/cluster.ts";
import { CountingHost } from "../test/cluster/http-host.ts";
import { startSyncServer, type SyncServer } from "../test/sync/ws-server.ts";

const PEERS = Number(process.env.PEERS ?? 50);
const KEYS = Number(process.env.KEYS ?? 100);
const RUNS = Number(process.env.RUNS ?? 3);

type Contender = "hocuspocus-cluster" | "y-websocket";
type Sample = { requestsPerKey: number; maxPerKey: number; median: number; p95: number };

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function once(contender: Contender, run: number, host: CountingHost, cluster: Cluster, ws: SyncServer): Promise<Sample> {
  const room = `bench-${contender}-${run}-${Math.random().toString(36).slice(2)}`;
  const peers = Array.from({ length: PEERS }, (_, i) => {
    const doc = new Y.Doc();
    const conn: Connection =
      contender === "y-websocket"
        ? connectPeers(doc, { url: ws.url, room, WebSocketPolyfill: WebSocket })
        : connectHocuspocus(doc, {
            urls: i % 2 === 0 ? cluster.urls : [...cluster.urls].reverse(),
            room,
            token: cluster.token(room),
            WebSocketPolyfill: WebSocket,
          });
    const store = createSharedFetchStore({ doc, awareness: conn.awareness });
    return { doc, conn, store };
  });
  await Promise.all(peers.map((p) => p.conn.whenSynced));
  const paths = Array.from({ length: KEYS }, (_, k) => `/${room}/items/${k}`);
  const started = performance.now();
  const errors: string[] = [];
  const times = await Promise.all(
    peers.flatMap((p) =>
      paths.map((path) =>
        p.store.ensure({ url: host.url(path) }).then((snapshot) => {
          if (snapshot.status !== "success") errors.push(`${snapshot.status}: ${snapshot.error?.message}`);
          return performance.now() - started;
        }),
      ),
    ),
  );
  if (errors.length > 0) throw new Error(`${contender}: ${errors.length} of ${times.length} asks ended without data, e.g. ${errors[0]}`);
  const perKey = paths.map((path) => host.count(path));
  for (const p of peers) {
    p.store.destroy();
    p.conn.destroy();
    p.doc.destroy();
  }
  times.sort((a, b) => a - b);
  return {
    requestsPerKey: perKey.reduce((a, b) => a + b, 0) / KEYS,
    maxPerKey: Math.max(...perKey),
    median: quantile(times, 0.5),
    p95: quantile(times, 0.95),
  };
}

function emit(figure: string, contender: Contender, values: number[], unit: string): void {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (n: number): number => Math.round(n * 100) / 100;
  const params = { peers: PEERS, keys: KEYS, instances: contender === "y-websocket" ? 1 : 2 };
  console.log(
    JSON.stringify({
      figure,
      contender,
      params,
      value: round(quantile(sorted, 0.5)),
      unit,
      runs: values.length,
      min: round(sorted[0]!),
      max: round(sorted.at(-1)!),
    }),
  );
}

const host = await CountingHost.start();
const cluster = await startCluster();
const ws = await startSyncServer();
try {
  const samples: Record<Contender, Sample[]> = { "hocuspocus-cluster": [], "y-websocket": [] };
  for (let run = 0; run < RUNS; run++) {
    // Alternate the order so that neither contender always runs on a warmer process.
    const order: Contender[] = run % 2 === 0 ? ["hocuspocus-cluster", "y-websocket"] : ["y-websocket", "hocuspocus-cluster"];
    for (const contender of order) {
      samples[contender].push(await once(contender, run, host, cluster, ws));
      console.error(`  run ${run + 1}/${RUNS} ${contender}: ${JSON.stringify(samples[contender].at(-1))}`);
    }
  }
  console.error(
    `bench:cluster — node ${process.version}, ${PEERS} peers × ${KEYS} keys at once, ${RUNS} runs, host and servers on 127.0.0.1`,
  );
  for (const contender of ["hocuspocus-cluster", "y-websocket"] as const) {
    const s = samples[contender];
    emit(
      "requests per key",
      contender,
      s.map((x) => x.requestsPerKey),
      "requests",
    );
    emit(
      "most requests for one key",
      contender,
      s.map((x) => x.maxPerKey),
      "requests",
    );
    emit(
      "time to data, median over peers and keys",
      contender,
      s.map((x) => x.median),
      "ms",
    );
    emit(
      "time to data, p95 over peers and keys",
      contender,
      s.map((x) => x.p95),
      "ms",
    );
  }
} finally {
  await ws.close();
  await cluster.stop();
  await host.close();
}
