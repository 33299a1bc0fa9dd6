/**
 * A dashboard's work per query (`npm run bench`; alone: `node --import tsx bench/dashboard.tsx`):
 * jsdom + React, `useQueries` over N queries, against one instant in-process host. Phases, each
 * timed until every query of the page has settled: mount, `invalidateQueries()` of all, unmount
 * half, mount that half again (its queries stale in the cache: TanStack refetches them on mount).
 * Contenders in one run, taken in turn per repetition: plain TanStack Query (`queryOptions` whose
 * function calls the host), shared-fetch in one tab (`sharedQueryOptions`), and shared-fetch in two
 * tabs synced through connectTabs (BroadcastChannel, fake-indexeddb): both tabs show the dashboard,
 * the phases run in the first, and a phase ends once the second shows what the first does. Figures:
 * ms per query per phase (the phase's time ÷ the queries it touched), median of REPS, and the ratio
 * to TanStack's, the median of each repetition's own ratio. JSON lines per shared/BENCH.md.
 */
import type { UseQueryOptions } from "@tanstack/react-query";
import { JSDOM } from "jsdom";
// React's production build, as a dashboard ships (its development build doubles the render work).
process.env.NODE_ENV = "production";
import "fake-indexeddb/auto";

const dom = new JSDOM("<!doctype html><div id=a></div><div id=b></div>", { pretendToBeVisual: true, url: "https://app.example.test/" });
for (const name of ["window", "document", "HTMLElement", "Node", "navigator"] as const)
  Object.defineProperty(globalThis, name, { value: dom.window[name], configurable: true, writable: true });

const { QueryClient, QueryClientProvider, useQueries } = await import("@tanstack/react-query");
const { createElement: h, useState } = await import("react");
const { createRoot } = await import("react-dom/client");
const { flushSync } = await import("react-dom");
const Y = await import("yjs");
const { connectTabs, createSharedFetchStore, SharedFetchProvider, sharedQueryOptions } = await import("../src/index.ts");
const { median } = await import("./browser/stats.ts");
const { print } = await import("./scale.ts");

type Client = InstanceType<typeof QueryClient>;
type Store = ReturnType<typeof createSharedFetchStore>;
type Options = (i: number) => UseQueryOptions<unknown, Error, unknown, readonly unknown[]>;

const SIZES = (process.env.DASHBOARD_SIZES ?? "200,1000,2000").split(",").filter(Boolean).map(Number);
const REPS = Number(process.env.DASHBOARD_REPS ?? 3);
const PHASES = ["mount", "invalidate all", "unmount half", "remount half"] as const;
const CONTENDERS = ["tanstack-query", "shared-fetch", "shared-fetch/2-tabs"] as const;
type Contender = (typeof CONTENDERS)[number];
/**
 * Two tabs up to this size: 2 000 takes about 18 s a repetition here (2 cores), three of them would
 * take the bench past its two minutes. It was 200 while each update was one IndexedDB transaction
 * (fake-indexeddb's queue of a thousand) and each render updated every observer's options.
 */
const TWO_TABS_MAX = Number(process.env.DASHBOARD_TWO_TABS_MAX ?? 1000);

let answers = 0;
const host: typeof fetch = async (input) => new Response(JSON.stringify({ url: String(input), n: ++answers }), { status: 200 });
const url = (i: number) => `https://api.example.test/dashboard/${i}`;

/** One tab: its React root, showing `n` of the dashboard's queries, and a setter for `n`. */
function mountTab(container: Element, client: Client, options: Options, store: Store | undefined, n: number) {
  let setShown!: (n: number) => void;
  function Dashboard() {
    const [shown, set] = useState(n);
    setShown = set;
    useQueries({ queries: Array.from({ length: shown }, (_, i) => options(i)) });
    return null;
  }
  const root = createRoot(container);
  const tree = h(QueryClientProvider, { client }, store ? h(SharedFetchProvider, { store }, h(Dashboard)) : h(Dashboard));
  flushSync(() => root.render(tree));
  return { show: (k: number) => flushSync(() => setShown(k)), unmount: () => root.unmount() };
}

/** Resolves once `done()` holds, checked after every task (a phase's end is a state, not an event). */
function until(done: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (done()) resolve();
      else if (performance.now() - started > limitMs) reject(new Error(`dashboard bench: ${what} did not settle in ${limitMs} ms`));
      else setImmediate(check);
    };
    check();
  });
}

const settled =
  (client: Client, n: number, since = -1) =>
  () => {
    const all = client.getQueryCache().getAll();
    let ok = 0;
    for (const q of all)
      if (q.state.status === "success" && q.state.fetchStatus === "idle" && !q.state.isInvalidated && q.state.dataUpdatedAt > since) ok++;
    return ok >= n && client.isFetching() === 0;
  };

/** The second tab shows the first's answer for each of the first `n` queries. */
const inStep = (a: Client, b: Client, keyOf: (i: number) => readonly unknown[], n: number) => () => {
  for (let i = 0; i < n; i++) {
    const da = a.getQueryData<{ n: number }>(keyOf(i));
    const db = b.getQueryData<{ n: number }>(keyOf(i));
    if (!da || !db || da.n !== db.n) return false;
  }
  return true;
};

/** One repetition of one contender at size n: ms per query for each phase. */
async function run(contender: Contender, n: number, rep: number): Promise<{ ms: number[]; transactions: number }> {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const name = `dashboard-${n}-${rep}-${Math.random().toString(36).slice(2)}`;
  const docs = contender === "tanstack-query" ? [] : contender === "shared-fetch" ? [new Y.Doc()] : [new Y.Doc(), new Y.Doc()];
  const tabs = contender === "shared-fetch/2-tabs" ? docs.map((doc) => connectTabs(doc, { name })) : [];
  await Promise.all(tabs.map((t) => t.whenSynced));
  const stores = docs.map((doc, i) =>
    createSharedFetchStore({ doc, fetch: host, locks: null, ...(tabs[i] && { awareness: tabs[i].awareness }) }),
  );
  const optionsOf = (store: Store | undefined): Options =>
    store
      ? (i) => sharedQueryOptions(store, url(i)) as unknown as ReturnType<Options>
      : (i) => ({ queryKey: ["plain", url(i)], queryFn: ({ signal }) => host(url(i), { signal }).then((r) => r.json()) });
  const options = optionsOf(stores[0]);
  const keyOf = (i: number) => options(i).queryKey;
  const ms: number[] = [];
  let t = performance.now();
  const a = mountTab(dom.window.document.getElementById("a")!, client, options, stores[0], n);
  // The second tab mounts before the first's phases are timed: it only follows.
  let b: ReturnType<typeof mountTab> | undefined;
  let other: Client | undefined;
  const follow = async (k: number) => {
    if (other) await until(inStep(client, other, keyOf, k), "the second tab");
  };
  await until(settled(client, n), "mount");
  ms.push((performance.now() - t) / n);
  if (stores[1]) {
    other = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    b = mountTab(dom.window.document.getElementById("b")!, other, optionsOf(stores[1]), stores[1], n);
    await until(settled(other, n), "the second tab's mount");
    await follow(n);
  }

  const since = Date.now();
  // The doc transactions this tab makes while the dashboard is invalidated (claims, results).
  let transactions = 0;
  const count = () => void transactions++;
  docs[0]?.on("afterTransaction", count);
  t = performance.now();
  await client.invalidateQueries();
  await until(settled(client, n, since - 1), "invalidate all");
  await follow(n);
  ms.push((performance.now() - t) / n);
  docs[0]?.off("afterTransaction", count);

  t = performance.now();
  a.show(n / 2);
  await until(
    () =>
      client
        .getQueryCache()
        .getAll()
        .filter((q) => q.getObserversCount() > 0).length ===
      n / 2,
    "unmount half",
  );
  ms.push((performance.now() - t) / (n / 2));

  t = performance.now();
  a.show(n);
  await until(() => {
    const all = client.getQueryCache().getAll();
    return client.isFetching() === 0 && all.every((q) => q.state.status === "success") && all.length >= n;
  }, "remount half");
  await follow(n);
  ms.push((performance.now() - t) / (n / 2));

  a.unmount();
  b?.unmount();
  client.clear();
  other?.clear();
  stores.forEach((s) => s.destroy());
  tabs.forEach((tab) => tab.destroy());
  return { ms, transactions: transactions / n };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
function summary(samples: number[]) {
  const sorted = [...samples].sort((x, y) => x - y);
  return { value: round(median(sorted)), min: round(sorted[0]!), max: round(sorted.at(-1)!), runs: sorted.length };
}

export async function dashboardBench(): Promise<void> {
  // A throwaway round first: JIT tiers and module state warm for every contender alike.
  for (const c of CONTENDERS) await run(c, 200, -1);
  for (const n of SIZES) {
    const contenders = CONTENDERS.filter((c) => c !== "shared-fetch/2-tabs" || n <= TWO_TABS_MAX);
    const samples = new Map<Contender, { ms: number[]; transactions: number }[]>(contenders.map((c) => [c, []]));
    for (let rep = 0; rep < REPS; rep++) for (const c of contenders) samples.get(c)!.push(await run(c, n, rep));
    const lines: string[] = [];
    PHASES.forEach((phase, p) => {
      const params = { queries: n, phase, host: "instant, in-process" };
      const plain = samples.get("tanstack-query")!.map((r) => r.ms[p]!);
      print("ms per query", "tanstack-query", params, summary(plain), "ms");
      const parts = [`tanstack-query ${summary(plain).value}`];
      for (const c of contenders.slice(1)) {
        const ours = samples.get(c)!.map((r) => r.ms[p]!);
        const ratio = summary(ours.map((x, i) => x / plain[i]!));
        print("ms per query", c, params, summary(ours), "ms");
        print("ms per query ÷ tanstack-query", c, params, { ...ratio, value: Math.round(ratio.value * 100) / 100 }, "ratio");
        parts.push(`${c} ${summary(ours).value} (${ratio.value.toFixed(2)}×)`);
      }
      lines.push(`    ${phase}: ${parts.join(", ")} ms per query`);
    });
    for (const c of contenders.slice(1)) {
      const per = summary(samples.get(c)!.map((r) => r.transactions));
      print("doc transactions per invalidated query", c, { queries: n }, per, "transactions");
      lines.push(`    doc transactions per invalidated query, ${c}: ${per.value}`);
    }
    console.log(`  dashboard of ${n} queries (median of ${REPS}):\n${lines.join("\n")}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await dashboardBench();
  process.exit(0);
}
