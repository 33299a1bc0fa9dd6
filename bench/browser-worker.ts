/**
 * One replica per browser (connectBrowser + SharedWorker) against per-tab replicas (the same page
 * with SharedWorker deleted: connectTabs + createSharedFetchStore in every tab), in one chromium
 * run, for K = 2, 4, 8 tabs of one browser context, against the counting host and a y-websocket
 * server on 127.0.0.1. JSON lines per ../shared/BENCH.md.
 *
 *   npm run bench:worker           (RUNS=3 per crash figure; TABS=2,4,8; ANSWER_MS=1000)
 *
 * - requests per key, sockets at the sync server, IndexedDB connections: K tabs opened, all show the data
 * - JS heap per tab (CDP Runtime.getHeapUsage after a GC), and of the worker
 * - crash of a non-host tab, the host answering ANSWER_MS later: host answer → data in the slowest
 *   survivor's store (delivery: hidden tabs paint late, their timers throttled)
 *   (the "host" is the worker's creator in worker mode, the claimant in per-tab mode)
 * - crash of the host tab mid-request: crash → the 2nd request at the host, crash → data in the
 *   slowest survivor, and requests; and where that time goes: each survivor learning the worker
 *   died, the next worker's first hello, its IndexedDB open, its request (marks the test page and
 *   its worker file record). Twice: once every tab has been up UP_MS (500) past showing pending
 *   (upMs 500), and the moment the last one shows pending, while it still boots (upMs 0)
 * - the load average at the start and the end (`env:` lines): these figures move with it
 *
 * MODES=tab|worker runs one side, UP_MS sets the steady state's wait, STANDBY=off turns the
 * standby worker off, TIMELINE=1 prints each host-tab crash's events and marks and each
 * delivery's (response, outcome written, first and last post to a tab, each survivor) to stderr.
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import type { Browser } from "playwright-core";
import { startSyncServer, type SyncServer } from "../test/sync/ws-server.ts";
import { startHost, type CountingHost } from "../test/browser/host.ts";
import { launchBrowser, uniqueName, waitUntil, type Tab } from "../test/browser/harness.ts";
import {
  buildWorkerPage,
  idbOpens,
  openWorkerTabs,
  pageHeap,
  socketStats,
  workerHeaps,
  type WorkerPageConfig,
} from "../test/browser/worker-harness.ts";
import { median } from "./browser/stats.ts";

const RUNS = Number(process.env.RUNS ?? 3);
const KS = (process.env.TABS ?? "2,4,8").split(",").map(Number);
const ANSWER_MS = Number(process.env.ANSWER_MS ?? 1000);
const LEASE_MS = 1500;
/** How long every tab has been up (past showing pending) when the host tab crashes, in the steady-state figure. */
const UP_MS = Number(process.env.UP_MS ?? 500);

type Contender = "shared-fetch/worker" | "shared-fetch/tabs";
/** MODES=worker or MODES=tab (or tabs) runs one side only; STANDBY=off turns the next generation's standby worker off. */
const MODES = process.env.MODES?.split(",").map((m) => (m === "tab" ? "tabs" : m));
const CONTENDERS = (["shared-fetch/worker", "shared-fetch/tabs"] as Contender[]).filter((c) => !MODES || MODES.includes(c.split("/")[1]!));
const STANDBY = process.env.STANDBY !== "off";

function emit(figure: string, contender: Contender, params: Record<string, unknown>, samples: number[], unit: string): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const value = sorted.length ? median(sorted) : NaN;
  const round = (x: number) => Math.round(x * 10) / 10;
  const name = contender === "shared-fetch/worker" && !STANDBY ? "shared-fetch/worker-no-standby" : contender;
  console.log(
    JSON.stringify({
      figure,
      contender: name,
      params,
      value: round(value),
      unit,
      runs: samples.length,
      min: round(sorted[0]!),
      max: round(sorted.at(-1)!),
    }),
  );
}

async function setup(browser: Browser, host: CountingHost, contender: Contender, k: number, config: WorkerPageConfig) {
  const context = await browser.newContext();
  const worker = contender === "shared-fetch/worker";
  const cfg: WorkerPageConfig = worker ? (STANDBY ? config : { ...config, standby: "off" }) : { ...config, worker: "absent" };
  // The first tab alone: in worker mode it starts the SharedWorker, which then lives in its renderer.
  const [first] = await openWorkerTabs(context, host, cfg, 1, "host");
  await waitUntil("the first tab asked", () =>
    first!.page.evaluate(() => document.querySelector('[data-testid="status"]')?.textContent !== "idle"),
  );
  const rest = k > 1 ? await openWorkerTabs(context, host, cfg, k - 1, "tab") : [];
  return { context, tabs: [first!, ...rest] };
}

/** Page epoch ms → this process's performance clock. */
async function toLocal(tab: Tab): Promise<(epoch: number) => number> {
  const { offset } = await tab.clockOffset(7);
  return (epoch) => epoch - offset - performance.timeOrigin;
}

/**
 * When the tab's store first held the data, on this process's clock: delivery to the tab. Hidden
 * tabs paint late (their timers are throttled), so the DOM would measure the browser's throttling.
 */
async function dataAt(tab: Tab): Promise<number> {
  const at = await waitUntil(`${tab.name} has the data`, () =>
    tab.page.evaluate(() => (window as unknown as { __dataAt?: number }).__dataAt),
  );
  return (await toLocal(tab))(at);
}

type Diag = {
  at: number;
  worker?: string;
  workerGone?: string;
  helloAt?: number;
  openedAt?: number;
  fetchAt?: number;
  lock?: string;
  mode?: string;
  granted?: number;
};

/**
 * Where a takeover's time goes, each on this process's clock: every survivor learning the worker
 * died (its lock granted to the tab's watch; first and last), the standby learning it (the same
 * lock granted to its own watch: its promotion), the next worker's first hello, its IndexedDB
 * open, and its request (the tab's page and worker file record these marks).
 */
async function takeoverMarks(survivors: Tab[]): Promise<Record<string, number | undefined>> {
  const diags = await Promise.all(
    survivors.map(async (tab) => ({
      local: await toLocal(tab),
      diag: await tab.page.evaluate(() => (window as unknown as { __diag: Diag[] }).__diag),
    })),
  );
  const gone = diags.flatMap(({ local, diag }) => diag.filter((d) => d.workerGone?.endsWith(":0")).map((d) => local(d.at)));
  const { local, diag } = diags[0]!;
  const next = (field: "helloAt" | "openedAt" | "fetchAt") => {
    const d = diag.find((x) => typeof x[field] === "number" && x.worker !== undefined && !x.worker.endsWith(":0"));
    return d ? local(d[field]!) : undefined;
  };
  const promoted = diag.find(
    (x) => x.worker !== undefined && !x.worker.endsWith(":0") && x.lock?.startsWith("shared-fetch:worker:") && x.mode === "shared",
  );
  return {
    "a survivor learns the worker died (first)": gone.length ? Math.min(...gone) : undefined,
    "the standby learns the worker died": promoted?.granted !== undefined ? local(promoted.granted) : undefined,
    "a survivor learns the worker died (last)": gone.length ? Math.max(...gone) : undefined,
    "the next worker gets its first hello": next("helloAt"),
    "the next worker opens the doc": next("openedAt"),
    "the next worker sends the request": next("fetchAt"),
  };
}

async function claimantOf(tabs: Tab[], contender: Contender): Promise<Tab> {
  if (contender === "shared-fetch/worker") return tabs[0]!;
  return waitUntil("the claimant tab", async () => {
    const flags = await Promise.all(tabs.map((t) => t.dispatched()));
    return tabs[flags.indexOf(true)];
  });
}

async function counts(browser: Browser, host: CountingHost, sync: SyncServer, contender: Contender, k: number): Promise<void> {
  const api = `/api/${uniqueName("bench-w-count")}`;
  const before = await socketStats(sync.url);
  const { context, tabs } = await setup(browser, host, contender, k, {
    api,
    tabs: uniqueName("app"),
    ws: sync.url,
    room: uniqueName("room"),
  });
  try {
    await Promise.all(tabs.map((t) => t.waitForData()));
    const after = await socketStats(sync.url);
    const opens = await Promise.all(tabs.map(idbOpens));
    const idb = opens.reduce((n, o) => n + o.tab, 0) + Object.values(opens[0]!.workers).reduce((a, b) => a + b, 0);
    const params = { tabs: k };
    emit("requests per key", contender, params, [host.count(api)], "requests");
    emit("sockets at the sync server", contender, params, [after.open - before.open], "sockets");
    emit("IndexedDB connections", contender, params, [idb], "connections");
    const heaps = [];
    for (const tab of tabs) heaps.push((await pageHeap(tab)) / 1024 / 1024);
    emit("JS heap per tab", contender, params, heaps, "MiB");
    if (contender === "shared-fetch/worker") {
      const workers = (await workerHeaps(browser)).map((b) => b / 1024 / 1024);
      if (workers.length > 0) emit("JS heap per worker (the live one and the standby)", contender, params, workers, "MiB");
    }
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/** A tab other than the host crashes while the host takes ANSWER_MS: host answer → data in the slowest survivor. */
async function crashOther(
  browser: Browser,
  host: CountingHost,
  contender: Contender,
  k: number,
): Promise<{ ms: number; requests: number }> {
  const api = `/api/${uniqueName("bench-w-other")}`;
  host.plan(api, ["hold"]);
  const { context, tabs } = await setup(browser, host, contender, k, { api, tabs: uniqueName("app"), leaseMs: LEASE_MS });
  try {
    const call = await host.waitForCall(api, 1);
    const claimant = await claimantOf(tabs, contender);
    const victim = tabs.find((t) => t !== claimant)!;
    const survivors = tabs.filter((t) => t !== victim);
    // Every tab is up and waiting before the crash; the host answers ANSWER_MS after it (booting tabs would skew the delivery).
    await Promise.all(survivors.map((t) => t.waitForStatus("pending")));
    await victim.crash();
    await new Promise((r) => setTimeout(r, ANSWER_MS));
    call.respond();
    await Promise.all(survivors.map((t) => t.waitForData(30_000)));
    const shown = await Promise.all(survivors.map(dataAt));
    if (process.env.TIMELINE) {
      const local = await toLocal(survivors[0]!);
      const diag = await survivors[0]!.page.evaluate(() => (window as unknown as { __diag: Record<string, unknown>[] }).__diag);
      const d = diag.find((x) => x.delivery) as
        { answeredAt?: number; settledAt?: number; delivery: { posts: number; first: number; last: number; postMs: number } } | undefined;
      const rel = (at: number | undefined) => (at === undefined ? undefined : Math.round((local(at) - call.answeredAt!) * 10) / 10);
      console.error(
        JSON.stringify({
          k,
          contender,
          response: rel(d?.answeredAt),
          written: rel(d?.settledAt),
          firstPost: rel(d?.delivery.first),
          lastPost: rel(d?.delivery.last),
          posts: d?.delivery.posts,
          postMs: d?.delivery.postMs,
          shown: shown.map((x) => Math.round((x - call.answeredAt!) * 10) / 10).sort((a, b) => a - b),
        }),
      );
    }
    return { ms: Math.max(...shown) - call.answeredAt!, requests: host.count(api) };
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/**
 * The host tab (worker's creator / claimant) crashes mid-request: crash → data in the slowest
 * survivor. `upMs` after every survivor shows pending: 0 crashes while the last tab still boots
 * (it shows pending as soon as it asks, before it reaches the worker or syncs its replica; in
 * worker mode its standby is then still loading), UP_MS once every tab is up.
 */
async function crashHost(
  browser: Browser,
  host: CountingHost,
  contender: Contender,
  k: number,
  upMs: number,
): Promise<{ ms: number; requestMs: number; marks: Record<string, number | undefined>; requests: number }> {
  const api = `/api/${uniqueName("bench-w-host")}`;
  host.plan(api, ["hang", { delayMs: 0 }]);
  const { context, tabs } = await setup(browser, host, contender, k, { api, tabs: uniqueName("app"), leaseMs: LEASE_MS });
  try {
    await host.waitForCall(api, 1);
    const claimant = await claimantOf(tabs, contender);
    const survivors = tabs.filter((t) => t !== claimant);
    await Promise.all(survivors.map((t) => t.waitForStatus("pending")));
    if (upMs > 0) await new Promise((r) => setTimeout(r, upMs));
    const crashedAt = await claimant.crash();
    const second = await host.waitForCall(api, 2, 30_000);
    await Promise.all(survivors.map((t) => t.waitForData(30_000)));
    const shown = await Promise.all(survivors.map(dataAt));
    if (process.env.TIMELINE) {
      const tab = survivors[0]!;
      const local = await toLocal(tab);
      const lines = await tab.page.evaluate(() => {
        const w = window as unknown as { __diag: { at: number }[]; __events: { at: number; type: string }[] };
        return [...w.__diag, ...w.__events];
      });
      const rel = lines
        .map((l) => ({ ...l, t: Math.round(local(l.at) - crashedAt) }))
        .filter((l) => l.t > -50)
        .sort((a, b) => a.t - b.t);
      for (const l of rel) console.error(JSON.stringify(l));
      console.error(JSON.stringify({ k, contender, upMs, shown: shown.map((x) => Math.round(x - crashedAt)).sort((a, b) => a - b) }));
    }
    const marks = Object.fromEntries(
      Object.entries(await takeoverMarks(survivors)).map(([k, at]) => [k, at === undefined ? undefined : at - crashedAt]),
    );
    return { ms: Math.max(...shown) - crashedAt, requestMs: second.at - crashedAt, marks, requests: host.count(api) };
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/** RUNS host-tab crashes, `upMs` after every survivor showed pending, as JSON lines. */
async function hostCrashes(browser: Browser, host: CountingHost, contender: Contender, k: number, upMs: number): Promise<void> {
  const hostMs: number[] = [];
  const hostRequestMs: number[] = [];
  const marks = new Map<string, number[]>();
  const hostRequests: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const h = await crashHost(browser, host, contender, k, upMs);
    hostMs.push(h.ms);
    hostRequestMs.push(h.requestMs);
    for (const [mark, ms] of Object.entries(h.marks)) if (ms !== undefined) marks.set(mark, [...(marks.get(mark) ?? []), ms]);
    hostRequests.push(h.requests);
  }
  const params = { tabs: k, leaseMs: LEASE_MS, upMs };
  emit("crash of the host tab: crash → data in survivors", contender, params, hostMs, "ms");
  emit("crash of the host tab: crash → 2nd request at the host", contender, params, hostRequestMs, "ms");
  for (const [mark, samples] of marks) emit(`crash of the host tab: crash → ${mark}`, contender, { tabs: k, upMs }, samples, "ms");
  emit("crash of the host tab: requests", contender, { tabs: k, upMs }, hostRequests, "requests");
}

/** The machine's load average, an `env:` line (not a figure): these figures move with it on a shared machine. */
function printLoad(when: "start" | "end"): void {
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
  console.log(`env: load average at the ${when} ${load} (1/5/15 min)`);
}

async function main(): Promise<void> {
  printLoad("start");
  const page = await buildWorkerPage();
  const host = await startHost(page.dir);
  const sync = await startSyncServer();
  const browser = await launchBrowser();
  try {
    for (const k of KS) {
      for (const contender of CONTENDERS) {
        await counts(browser, host, sync, contender, k);
        // A crash needs a survivor: a lone tab has none.
        if (k < 2) {
          console.log(`n/a  ${contender}, 1 tab: crash figures (no tab survives the crash)`);
          continue;
        }
        const other: number[] = [];
        const otherRequests: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const o = await crashOther(browser, host, contender, k);
          other.push(o.ms);
          otherRequests.push(o.requests);
        }
        emit("crash of a non-host tab: host answer → data in survivors", contender, { tabs: k, answerMs: ANSWER_MS }, other, "ms");
        emit("crash of a non-host tab: requests", contender, { tabs: k }, otherRequests, "requests");
        for (const upMs of [UP_MS, 0]) await hostCrashes(browser, host, contender, k, upMs);
      }
    }
    printLoad("end");
  } finally {
    await browser.close().catch(() => {});
    await sync.close();
    await host.close();
    await page.remove();
  }
}

await main();
