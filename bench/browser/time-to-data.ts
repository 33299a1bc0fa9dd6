/**
 * K tabs of one browser opening the same page, at once or staggered, the host answering in
 * hostMs: requests per key, and each tab's time from its navigation start to data in its DOM
 * (page-local: both ends on the tab's own clock), slowest and median tab. Also where the time of
 * the first-fetching tab goes (navigation start → script → every import evaluated → store/claim →
 * request).
 */
import type { Browser } from "playwright-core";
import { uniqueName } from "../../test/browser/harness.ts";
import type { CountingHost } from "../../test/browser/host.ts";
import {
  allShowData,
  benchUrl,
  CONTENDERS,
  mainThreadCpu,
  marksOf,
  openBenchTabs,
  settings,
  sleep,
  type Lib,
  type TabMarks,
} from "./setup.ts";
import { timeline } from "./timeline.ts";
import { median, type Figures } from "./stats.ts";

/**
 * Every contender, and the leader page carrying shared-fetch's code loaded but never run
 * ("payload"): its ratio to the leader is the floor under shared-fetch's own, what evaluating Yjs
 * and the package costs each tab before any of it runs.
 */
const DEFAULT_LIBS: Lib[] = ["tanstack", "broadcast", "leader", "payload", "shared", "worker"];
/**
 * Run only when named (LIBS=leader,beside,after): the leader page loading shared-fetch's replica by
 * `import()` beside its request, or once its data arrived — what a boot that sends the first request
 * before Yjs and the engine are evaluated could at best reach.
 */
const ON_REQUEST: Lib[] = ["beside", "after"];
/** LIBS=leader,shared runs some contenders only (a quick comparison; the targets need leader and shared). */
export const TTD_LIBS: Lib[] = process.env.LIBS
  ? [...DEFAULT_LIBS, ...ON_REQUEST].filter((lib) => process.env.LIBS!.split(",").includes(lib))
  : DEFAULT_LIBS;
/** Milestones of the first-fetching tab, from its navigation start (the probe's marks). */
const PHASES = [
  "script",
  "imported",
  "render",
  "store",
  "ensure",
  "idLockAsked",
  "idLockGranted",
  "replicaLockAsked",
  "replicaLockGranted",
  "keyLockAsked",
  "keyLockGranted",
  "leaderLockAsked",
  "leaderLockGranted",
  "idbOpen",
  "idbOpened",
  "locksQueried",
  "firstChannelMessage",
  "tabsSynced",
  "leader",
  "claimed",
  "dispatched",
  "fetch",
  "responded",
  "settled",
  "data",
] as const;

export async function timeToDataSample(
  browser: Browser,
  host: CountingHost,
  lib: Lib,
  tabs: number,
  staggered: boolean,
): Promise<{ requests: number; perTab: number[]; first: TabMarks; perTabMarks: TabMarks[] }> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName(`ttd-${lib}`)}`;
    host.plan(api, [{ delayMs: settings.hostMs }]);
    const url = benchUrl(host, lib, { api, name: uniqueName("app") });
    const pages = await openBenchTabs(context, url, tabs, staggered ? settings.staggerMs : 0);
    await allShowData(pages);
    // A duplicate sent late would still be counted.
    await sleep(100);
    const requests = host.count(api);
    if ((lib === "shared" || lib === "worker") && requests > 1) {
      console.log(
        `note: shared-fetch sent ${requests} requests for ${tabs} tabs (${staggered ? "staggered" : "at once"}): ${await timeline(pages)}`,
      );
    }
    const marks = await Promise.all(pages.map(marksOf));
    const perTab = marks.map((m) => {
      if (m.marks.data === undefined) throw new Error(`${CONTENDERS[lib]}: a tab shows data but marked none`);
      return m.marks.data - m.t0;
    });
    const fetching = marks.filter((m) => m.fetches.length > 0).sort((a, b) => a.fetches[0]! - b.fetches[0]!);
    // The SharedWorker replica fetches from the worker: no tab's probe sees it.
    if (lib === "worker" && fetching.length === 0 && requests > 0) return { requests, perTab, first: marks[0]!, perTabMarks: marks };
    if (fetching.length === 0) throw new Error(`${CONTENDERS[lib]}: the host saw ${requests} requests but no tab fetched`);
    // The leader page's whole point: one request when the tabs open at once. If not, it is broken.
    if (lib === "leader" && requests !== 1) throw new Error(`weblock-leader sent ${requests} requests for ${tabs} tabs (expected 1)`);
    // TanStack alone shares nothing between tabs (its broadcast plugin may hand a late tab data first).
    if (lib === "tanstack" && requests !== tabs)
      throw new Error(`tanstack-query: ${requests} requests for ${tabs} tabs (expected ${tabs})`);
    return { requests, perTab, first: fetching[0]!, perTabMarks: marks };
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/**
 * Each tab's main-thread CPU (CDP Performance metrics on thread ticks) until every tab shows
 * data, K tabs opened at once: in samples of their own, since attaching CDP to a page slows its
 * boot and would skew the time-to-data samples.
 */
async function mainThreadCpuSample(browser: Browser, host: CountingHost, lib: Lib, tabs: number): Promise<number[]> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName(`cpu-${lib}`)}`;
    host.plan(api, [{ delayMs: settings.hostMs }]);
    const cpus: { read: () => Promise<number> }[] = [];
    const pages = await openBenchTabs(context, benchUrl(host, lib, { api, name: uniqueName("app") }), tabs, 0, "tab", async (page) => {
      cpus.push(await mainThreadCpu(page));
    });
    await allShowData(pages);
    return await Promise.all(cpus.map((c) => c.read()));
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/** One repetition: `samples` samples of every contender, K and opening mode, contenders interleaved. */
export async function timeToData(browser: Browser, host: CountingHost, figures: Figures, rep: number): Promise<void> {
  for (const tabs of settings.tabCounts) {
    console.error(`time to data: repetition ${rep + 1}/${settings.reps}, ${tabs} tabs`);
    // One tab opened "apart" is the same sample as one opened at once.
    for (const staggered of tabs === 1 ? [false] : [false, true]) {
      const params = { tabs, hostMs: settings.hostMs, opened: staggered ? `every ${settings.staggerMs} ms` : "at once" };
      for (let s = 0; s < settings.samples; s++) {
        // Rotate the order so no contender always runs first (machine load drifts).
        const order = TTD_LIBS.map((_, i) => TTD_LIBS[(i + s + rep) % TTD_LIBS.length]!);
        for (const lib of order) {
          const r = await timeToDataSample(browser, host, lib, tabs, staggered);
          const who = CONTENDERS[lib];
          figures.add("requests per key", who, params, "requests", rep, r.requests);
          figures.add("slowest tab time to data", who, params, "ms", rep, Math.max(...r.perTab));
          figures.add("median tab time to data", who, params, "ms", rep, median(r.perTab));
          const perTab = (count: (m: TabMarks) => number) => median(r.perTabMarks.map(count));
          // What K tabs opening at once send each other: shared-fetch's replicas sync a doc.
          if (lib === "shared") {
            figures.add(
              "doc updates from other tabs before data (median tab)",
              who,
              params,
              "updates",
              rep,
              perTab((m) => m.docUpdates),
            );
            figures.add(
              "channel messages received before data (median tab)",
              who,
              params,
              "messages",
              rep,
              perTab((m) => m.channelMessages),
            );
          }
          figures.add(
            "renders of the view until data (median tab)",
            who,
            params,
            "renders",
            rep,
            perTab((m) => m.renders),
          );
          for (const phase of PHASES) {
            const at = phase === "fetch" ? r.first.fetches[0] : r.first.marks[phase];
            if (at !== undefined) figures.add(`first-fetching tab: navigation start → ${phase}`, who, params, "ms", rep, at - r.first.t0);
          }
        }
      }
    }
    const params = { tabs, hostMs: settings.hostMs, opened: "at once" };
    for (const lib of TTD_LIBS) {
      const cpu = await mainThreadCpuSample(browser, host, lib, tabs);
      figures.add("main-thread CPU per tab until every tab shows data (median tab)", CONTENDERS[lib], params, "ms", rep, median(cpu));
    }
  }
}
