/**
 * Work that scales with the change, not the doc (issue 8, finding 5), and the client's cost per
 * request (issue 10). Against one loopback HTTP host on 127.0.0.1 in a process of its own, in one
 * run, at 1 000, 10 000 and 50 000 keys in the doc (TanStack's cache filled with as many queries):
 * - client CPU per request (this process's, the host's excluded) and median time per request, in
 *   blocks of 1 000 new keys taken in turn, shared-fetch beside TanStack Query's `fetchQuery`
 *   (query-core QueryClient) asking the same host;
 * - time to claim (the synchronous part of `ensure` for a new key) and time per incoming update
 *   (another replica's claim applied);
 * - 8 replicas × 1 000 keys asked at once, each update delivered as its own task → requests per key.
 * Prints JSON lines (../shared BENCH.md format) and a short human line for each, all on stdout.
 */
import { fork } from "node:child_process";
import { QueryClient } from "@tanstack/query-core";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { median } from "./browser/stats.ts";

type Stats = { value: number; min: number; max: number; runs: number };
const SIZES = (process.env.SCALE_SIZES ?? "1000,10000,50000").split(",").filter(Boolean).map(Number);
const BLOCK = 1000;
/**
 * Requests each contender makes before the first measured block. Both need a few thousand before
 * their time per request stops falling (JIT tiers, heap sizing: blocks of 500 from a cold start read
 * 0.9 → 0.33 ms for shared-fetch and 0.5 → 0.15 ms for fetchQuery, flat after about 2 500); with
 * fewer, the first block measures warm-up rather than the doc's size.
 */
const WARMUP = Number(process.env.WARMUP ?? 4000);
/**
 * Measured blocks per contender and size, taken in turn; each figure is their median, and each
 * ratio the median of the blocks' ratios, each block to the other's taken beside it (machine speed
 * drifts between blocks far more than between neighbours). With 3, a single fast block of either
 * moved the 10 000-key ratio from 1.6 to 2.2 run to run.
 */
const REPS = Number(process.env.REPS ?? 5);
/** Issue 10's bound on the client's CPU per request, as a ratio to TanStack Query's `fetchQuery`. */
const CPU_TARGET = 2;
/** 1 000 as issue 8 asks; this run takes minutes while the claim storm (see README) stands. */
const LOAD_KEYS = Number(process.env.LOAD_KEYS ?? 1000);

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { value: round(median(sorted)), min: round(sorted[0]!), max: round(sorted.at(-1)!), runs: sorted.length };
}

/** One measurement: runs 1, min = max = value. */
export const once = (value: number): Stats => ({ value, min: value, max: value, runs: 1 });

export function print(figure: string, contender: string, params: Record<string, unknown>, s: Stats, unit: string, more: object = {}): void {
  console.log(JSON.stringify({ figure, contender, params, value: s.value, unit, runs: s.runs, min: s.min, max: s.max, ...more }));
}

/** Block i of ours ÷ block i of theirs (taken one after the other), summarised like any figure. */
function pairedRatio(ours: number[], theirs: number[]): Stats {
  const s = stats(ours.map((x, i) => x / theirs[i]!));
  const round = (n: number) => Math.round(n * 100) / 100;
  return { value: round(s.value), min: round(s.min), max: round(s.max), runs: s.runs };
}

/**
 * The loopback host runs in a process of its own (bench/loopback-host.ts): this process's CPU is
 * then the client's alone, as "client CPU per request" says, and each answer wakes the client as
 * a remote host's would. `HOST=in-process` serves from this process, as the figures before
 * 2026-12 were measured: the host's own work was then counted on both sides and no answer woke an
 * idle client.
 */
async function loopbackHost() {
  if (process.env.HOST === "in-process") return (await import("./loopback-host.ts")).serve();
  const child = fork(new URL("./loopback-host.ts", import.meta.url).pathname, [], { execArgv: process.execArgv });
  const base = await new Promise<string>((resolve, reject) => {
    child.once("message", (m) => resolve(String(m)));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the loopback host exited (${code})`)));
  });
  child.removeAllListeners("exit");
  return { base, close: async () => void child.kill() };
}

/** An instant in-process host: fills the doc quickly between measured blocks. */
const instant: typeof fetch = async (input) => new Response(JSON.stringify({ path: String(input) }), { status: 200 });

async function timePerRequest(ask: (i: number) => Promise<unknown>, from: number, count = BLOCK): Promise<number[]> {
  const samples: number[] = [];
  for (let i = from; i < from + count; i++) {
    const t = performance.now();
    await ask(i);
    samples.push(performance.now() - t);
  }
  return samples;
}

/** One measured block: the median time per request and this process's CPU (all its threads, GC's included) per request. */
async function measureBlock(ask: (i: number) => Promise<unknown>, from: number): Promise<{ median: number; cpu: number }> {
  const before = process.cpuUsage();
  const samples = await timePerRequest(ask, from);
  const used = process.cpuUsage(before);
  return { median: stats(samples).value, cpu: (used.user + used.system) / 1000 / BLOCK };
}

async function scaling(base: string) {
  const doc = new Y.Doc();
  const peerDoc = new Y.Doc();
  let liveFetch: typeof fetch = fetch;
  // Default options: a doc nothing syncs waits no settle window (src/core/settle-window.ts).
  const store = createSharedFetchStore({ doc, locks: null, fetch: (input, init) => liveFetch(input, init) });
  const tanstack = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, retry: false } } });
  const url = (i: number) => `${base}/k/${i}`;
  // Warm up the JIT, the sockets and both contenders on a throwaway doc and cache first.
  const warm = createSharedFetchStore({ doc: new Y.Doc(), locks: null });
  const warmClient = new QueryClient();
  await timePerRequest((i) => warm.ensure({ url: `${base}/warm/${i}` }), 0, WARMUP);
  await timePerRequest(
    (i) => warmClient.fetchQuery({ queryKey: [i], queryFn: () => fetch(`${base}/warm-t/${i}`).then((r) => r.json()) }),
    0,
    WARMUP,
  );
  warm.destroy();
  let keys = 0;
  const blocks: number[] = [];
  for (const target of SIZES) {
    // Fill both to `target` keys without the network (TanStack's cache holds as many queries as
    // the doc holds keys), then measure REPS blocks of each, taken in turn, against the host.
    liveFetch = instant;
    for (; keys < target; keys++) {
      await store.ensure({ url: url(keys) });
      tanstack.setQueryData([url(keys)], { path: url(keys) });
    }
    liveFetch = fetch;
    const ours: { median: number; cpu: number }[] = [];
    const theirs: { median: number; cpu: number }[] = [];
    for (let rep = 0; rep < REPS; rep++, keys += BLOCK) {
      ours.push(await measureBlock((i) => store.ensure({ url: url(i) }), keys));
      theirs.push(
        await measureBlock((i) => tanstack.fetchQuery({ queryKey: [url(i)], queryFn: () => fetch(url(i)).then((r) => r.json()) }), keys),
      );
    }
    const params = { keysInDoc: target, block: BLOCK, blocks: REPS, host: process.env.HOST ?? "own process" };
    const oursTime = stats(ours.map((b) => b.median));
    const oursCpu = stats(ours.map((b) => b.cpu));
    const theirsTime = stats(theirs.map((b) => b.median));
    const theirsCpu = stats(theirs.map((b) => b.cpu));
    blocks.push(oursTime.value);
    print("time per request", "shared-fetch", params, oursTime, "ms");
    print("time per request", "tanstack-query", params, theirsTime, "ms");
    print("client CPU per request", "shared-fetch", params, oursCpu, "ms");
    print("client CPU per request", "tanstack-query", params, theirsCpu, "ms");
    const cpuRatio = pairedRatio(
      ours.map((b) => b.cpu),
      theirs.map((b) => b.cpu),
    );
    const timeRatio = pairedRatio(
      ours.map((b) => b.median),
      theirs.map((b) => b.median),
    );
    print("time per request ÷ tanstack-query", "shared-fetch", params, timeRatio, "ratio");
    const cpuMet = cpuRatio.value <= CPU_TARGET;
    print("client CPU per request ÷ tanstack-query", "shared-fetch", params, cpuRatio, "ratio", {
      target: `≤ ${CPU_TARGET}`,
      met: cpuMet,
    });
    const ratio = (r: Stats) => `${r.value.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;

    // Time to claim: the synchronous part of ensure for a key nobody holds.
    liveFetch = () => new Promise<Response>(() => {}); // never answers: the claim stays
    const claimSamples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      void store.ensure({ url: `${base}/claim/${target}/${i}` }).catch(() => {});
      claimSamples.push(performance.now() - t);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    print("time to claim", "shared-fetch", { keysInDoc: keys }, stats(claimSamples), "ms");

    // Time per incoming update: a peer's claim for a new key, applied to this replica's doc.
    Y.applyUpdate(peerDoc, Y.encodeStateAsUpdate(doc, Y.encodeStateVector(peerDoc)));
    const peer = createSharedFetchStore({ doc: peerDoc, settleMs: 0, locks: null, fetch: () => new Promise<Response>(() => {}) });
    const updates: Uint8Array[] = [];
    const collect = (update: Uint8Array) => updates.push(update);
    peerDoc.on("update", collect);
    // One claim per tick: claims of one tick share a transaction, and this times one claim's update.
    for (let i = 0; i < 200; i++) {
      void peer.ensure({ url: `${base}/peer/${target}/${i}` }).catch(() => {});
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    peerDoc.off("update", collect);
    const updateSamples = updates.map((update) => {
      const t = performance.now();
      Y.applyUpdate(doc, update, "peer");
      return performance.now() - t;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    print("time per incoming update", "shared-fetch", { keysInDoc: keys }, stats(updateSamples), "ms");
    peer.destroy();
    console.log(
      `  ${target} keys: client CPU ${oursCpu.value} ms per request (TanStack fetchQuery ${theirsCpu.value} ms, ${ratio(cpuRatio)}); ` +
        `time ${oursTime.value} ms (${theirsTime.value} ms, ${ratio(timeRatio)}); claim ${stats(claimSamples).value} ms, incoming update ${stats(updateSamples).value} ms`,
    );
    // The verdict from the value the JSON line carries (the paired ratio, rounded as printed).
    console.log(
      `  ${cpuMet ? "target met    " : "target NOT met"}  client CPU per request ≤ ${CPU_TARGET}× tanstack-query, ${target} keys: ${cpuRatio.value.toFixed(2)}×`,
    );
  }
  store.destroy();
  return blocks;
}

/** Every update delivered as its own task (setTimeout), as BroadcastChannel and WebSocket do. */
async function loadTest() {
  // In-process host (20 ms per answer): 8 000 concurrent sockets to one loopback server mostly
  // measure the socket pool, and a starved event loop turns them into connect timeouts.
  let requests = 0;
  const slow: typeof fetch = async () => {
    requests++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return new Response("1", { status: 200 });
  };
  const docs = Array.from({ length: 8 }, () => new Y.Doc());
  const origin = Symbol("net");
  for (const doc of docs) {
    doc.on("update", (update: Uint8Array, from: unknown) => {
      if (from === origin) return;
      for (const other of docs) if (other !== doc) setTimeout(() => Y.applyUpdate(other, update, origin), 0);
    });
  }
  const stores = docs.map((doc) => createSharedFetchStore({ doc, locks: null, fetch: slow }));
  const started = performance.now();
  const snaps = await Promise.all(
    stores.flatMap((s) => Array.from({ length: LOAD_KEYS }, (_, i) => s.ensure({ url: `https://api.example.test/load/${i}` }))),
  );
  const errors = snaps.filter((snap) => snap.status !== "success").length;
  if (errors > 0) console.error(`  (${errors} of ${snaps.length} ensures ended without a result)`);
  const perKey = requests / LOAD_KEYS;
  print("requests per key", "shared-fetch", { replicas: 8, keys: LOAD_KEYS, delivery: "one task per update" }, once(perKey), "requests");
  console.log(
    `  8 replicas × ${LOAD_KEYS} keys, one task per update: ${perKey} requests per key (${Math.round(performance.now() - started)} ms)`,
  );
  stores.forEach((s) => s.destroy());
}

export async function scaleBench(): Promise<void> {
  const host = await loopbackHost();
  try {
    const blocks = await scaling(host.base);
    if (blocks.length)
      console.log(`  time per request, each block / first block: ${blocks.map((b) => (b / blocks[0]!).toFixed(2)).join(", ")}`);
    // LOAD_KEYS=0 skips the load part (its per-key figure would divide by zero).
    if (LOAD_KEYS > 0) await loadTest();
  } finally {
    await host.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await scaleBench();
