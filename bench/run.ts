/**
 * `npm run bench`: figures the README quotes. Prints what it measured, a human line and a JSON
 * line (../shared/BENCH.md) per figure; asserts nothing.
 * - doc growth: encoded size of the shared doc after N request/refetch cycles over K keys
 * - dedupe: host requests when R replicas on one synced network ask for the same keys at once
 * - bundle size of what an app imports (bench/bundle.ts)
 * - a dashboard's work per query beside TanStack Query (bench/dashboard.tsx)
 */
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { Network } from "../sim/network.ts";
import { bundleSizes } from "./bundle.ts";
import { once, print, scaleBench } from "./scale.ts";
import { devtoolsFigures } from "./devtools.ts";
import { spawn } from "node:child_process";

const CYCLES = Number(process.env.CYCLES ?? 10_000);
const KEYS = Number(process.env.KEYS ?? 100);

const kib = (bytes: number) => Math.round(bytes / 102.4) / 10;

function instantHost() {
  let calls = 0;
  const fetch: typeof globalThis.fetch = async () => {
    calls++;
    return new Response(JSON.stringify({ n: calls, at: calls }), { status: 200 });
  };
  return { fetch, calls: () => calls };
}

async function docGrowth() {
  const net = new Network(2);
  const host = instantHost();
  const [docA, docB] = net.docs as [Y.Doc, Y.Doc];
  const a = createSharedFetchStore({ doc: docA, fetch: host.fetch, settleMs: 0 });
  const b = createSharedFetchStore({ doc: docB, fetch: host.fetch, settleMs: 0 });
  const started = performance.now();
  const sizes: [number, number][] = [];
  for (let i = 0; i < CYCLES; i++) {
    const store = i % 2 === 0 ? a : b;
    const req = { url: `https://api.example.test/items/${i % KEYS}` };
    if (i < KEYS) await store.ensure(req);
    else await store.refetch(req);
    if ((i + 1) % (CYCLES / 5) === 0) sizes.push([i + 1, Y.encodeStateAsUpdate(docA).byteLength]);
  }
  const ms = performance.now() - started;
  console.log(
    `doc growth: ${CYCLES} request/refetch cycles over ${KEYS} keys, 2 replicas (${host.calls()} host calls, ${(ms / CYCLES).toFixed(2)} ms/cycle)`,
  );
  const params = { keys: KEYS, replicas: 2 };
  print("ms per request/refetch cycle", "shared-fetch", { cycles: CYCLES, ...params }, once(Math.round((ms / CYCLES) * 100) / 100), "ms");
  for (const [n, bytes] of sizes) {
    console.log(`  after ${String(n).padStart(6)} cycles: encoded doc ${(bytes / 1024).toFixed(1)} KiB`);
    print("encoded doc size", "shared-fetch", { cycles: n, ...params }, once(kib(bytes)), "KiB");
  }
  // The same writes into a Y.Map, for comparison: every overwrite leaves a tombstone behind.
  const mapDoc = new Y.Doc();
  const map = mapDoc.getMap("results");
  for (let i = 0; i < CYCLES; i++) mapDoc.transact(() => map.set(String(i % KEYS), { rev: i, data: { n: i, at: i } }));
  const mapBytes = Y.encodeStateAsUpdate(mapDoc).byteLength;
  console.log(`  (a plain Y.Map with the same ${CYCLES} result overwrites alone: ${(mapBytes / 1024).toFixed(1)} KiB)`);
  print(
    "encoded doc size",
    "plain Y.Map (result overwrites alone)",
    { cycles: CYCLES, keys: KEYS, replicas: 1 },
    once(kib(mapBytes)),
    "KiB",
  );
  a.destroy();
  b.destroy();
}

async function dedupe(replicas: number) {
  const net = new Network(replicas);
  const host = instantHost();
  const slow: typeof fetch = async (input, init) => {
    await new Promise((r) => setTimeout(r, 20));
    return host.fetch(input, init);
  };
  const stores = net.docs.map((doc) => createSharedFetchStore({ doc, fetch: slow, settleMs: 0 }));
  const urls = Array.from({ length: 20 }, (_, i) => `https://api.example.test/d/${i}`);
  await Promise.all(stores.flatMap((s) => urls.map((url) => s.ensure({ url }))));
  console.log(`dedupe: ${replicas} replicas × ${urls.length} keys asked at once → ${host.calls()} host requests`);
  print("host requests", "shared-fetch", { replicas, keys: urls.length }, once(host.calls()), "requests");
  stores.forEach((s) => s.destroy());
}

console.log(`shared-fetch bench — node ${process.version}, yjs in-process network, settleMs 0`);
await bundleSizes();
await docGrowth();
for (const r of [2, 8, 32]) await dedupe(r);
console.log("scaling (issue 8): per-request, per-claim and per-update cost as the doc grows, beside TanStack Query");
await scaleBench();
console.log("a dashboard: useQueries over N queries mounted, invalidated, half unmounted and mounted again, beside TanStack Query");
// A process of its own: it installs jsdom's globals and React's production build.
await new Promise<void>((resolve, reject) => {
  const child = spawn(process.execPath, [...process.execArgv, new URL("./dashboard.tsx", import.meta.url).pathname], { stdio: "inherit" });
  child.once("error", reject);
  child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`bench/dashboard.tsx exited with ${code}`))));
});
console.log("devtools (issue 12): the panel with 1 000 keys");
await devtoolsFigures();
