/**
 * Shared pieces of the browser bench: the settings (env), the contender pages (built with Vite
 * beside the e2e test page, served by the counting host) and opening tabs on them.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { build, type Plugin } from "vite";
import { buildTestPage, Tab } from "../../test/browser/harness.ts";
import type { CountingHost } from "../../test/browser/host.ts";
import type { BenchWindow } from "./page/probe.ts";

function intEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${JSON.stringify(raw)}: expected an integer ≥ ${min}`);
  return n;
}

function flagEnv(name: string): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === "" || raw === "0") return false;
  if (raw === "1") return true;
  throw new Error(`${name}=${JSON.stringify(raw)}: expected 1 (on) or 0 (off)`);
}

const ALL_FIGURES = ["ttd", "crash", "startup", "boot", "devices", "takeover", "follower", "interval", "return", "worker"] as const;
export type FigureName = (typeof ALL_FIGURES)[number];

function figuresEnv(): Set<FigureName> {
  const raw = process.env.FIGURES;
  if (!raw) return new Set(ALL_FIGURES);
  const names = raw.split(",").map((s) => s.trim());
  const bad = names.filter((n) => !(ALL_FIGURES as readonly string[]).includes(n));
  if (bad.length) throw new Error(`FIGURES=${raw}: unknown ${bad.join(", ")}; expected a comma list of ${ALL_FIGURES.join(", ")}`);
  return new Set(names as FigureName[]);
}

/** Bench settings; every one can be set by env for a quick run (e.g. REPS=1 SAMPLES=1). */
export const settings = {
  figures: figuresEnv(),
  /** Repetitions; each figure is the median (min–max) over them of the per-repetition median. */
  reps: intEnv("REPS", 3),
  samples: intEnv("SAMPLES", 3),
  hostMs: intEnv("HOST_MS", 300, 0),
  tabCounts: (process.env.TABS ?? "1,2,4,8").split(",").map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 1) throw new Error(`TABS=${process.env.TABS}: expected a comma list of integers ≥ 1`);
    return n;
  }),
  staggerMs: intEnv("STAGGER_MS", 100, 0),
  /** Tabs of the crash figure (the claimant and its survivors). */
  crashTabs: intEnv("CRASH_TABS", 3, 2),
  bootTabs: intEnv("BOOT_TABS", 4, 2),
  bootRuns: intEnv("BOOT_RUNS", 10),
  deviceBoots: intEnv("DEVICE_BOOTS", 20),
  /** Runs of the figures kept from before (takeover across devices, follower shows data) and of the return visit. */
  runs: intEnv("RUNS", 5),
  leaseMs: intEnv("LEASE_MS", 1500),
  intervalMs: intEnv("INTERVAL_MS", 1000),
  /** COMPILE_HINTS=1: every contender's chunks start with V8's explicit compile hint (`compileHint`). */
  compileHints: flagEnv("COMPILE_HINTS"),
};

/** The contenders' pages (bench/browser/page/*.html) and the names they print under. */
export const CONTENDERS = {
  tanstack: "tanstack-query",
  broadcast: "tanstack-query+broadcast",
  leader: "weblock-leader",
  shared: "shared-fetch",
  worker: "shared-fetch/worker",
  /** The leader page with shared-fetch's code loaded but never run: the floor under shared-fetch's time to data. */
  payload: "weblock-leader+shared-fetch code",
  /** The leader page loading shared-fetch's replica by import() beside its request, and once its data arrived: floors of a lazy boot. */
  beside: "weblock-leader+replica beside",
  after: "weblock-leader+replica after data",
  /** TanStack Query + its persister (localStorage): for the return visit only. */
  persist: "tanstack-query+persister",
} as const;
export type Lib = keyof typeof CONTENDERS;

/**
 * V8 (Chrome 136+) compiles every function of a script that starts with this comment eagerly, on
 * the streaming thread, instead of on the main thread at its first call.
 */
export const compileHint = "//# allFunctionsCalledOnLoad";

/**
 * Prepends `compileHint` to every chunk, last: minification would drop it as a banner, and Vite
 * puts its preload map (`const __vite__mapDeps=`) on top of chunks that import lazily, after the
 * minifier and `output.postBanner`.
 */
const compileHintPlugin = (): Plugin => ({
  name: "bench-compile-hint",
  generateBundle: {
    order: "post",
    handler(_options, bundle) {
      for (const chunk of Object.values(bundle)) if (chunk.type === "chunk") chunk.code = `${compileHint}\n${chunk.code}`;
    },
  },
});
const hintPlugins = () => (settings.compileHints ? [compileHintPlugin()] : []);

const benchRoot = fileURLToPath(new URL("./page/", import.meta.url));

/**
 * Builds pages of bench/browser/page (HTML file names → their entries) into `outDir`, served at
 * `base`: minified production bundles, as an app ships them.
 */
export async function buildBenchPages(base: string, outDir: string, pages: string[]): Promise<void> {
  await build({
    configFile: false,
    root: benchRoot,
    base,
    logLevel: "warn",
    mode: "production",
    plugins: [react(), ...hintPlugins()],
    // The SharedWorker contender's worker file is a module worker, as the README says to build it.
    worker: { format: "es", plugins: hintPlugins },
    build: {
      outDir,
      emptyOutDir: true,
      minify: true,
      sourcemap: false,
      reportCompressedSize: false,
      rollupOptions: { input: Object.fromEntries(pages.map((page) => [page, join(benchRoot, `${page}.html`)])) },
    },
  });
}

/** Builds one page of bench/browser/page alone, into `dir`/`path`, served at /`path`/. */
export function buildPageAlone(dir: string, path: string, page: string): Promise<void> {
  return buildBenchPages(`/${path}/`, join(dir, path), [page]);
}

/** Where a contender's page is served: each under a path of its own. */
const pathOf = (lib: Lib): string => `bench/${lib}`;

/**
 * Builds the e2e test page at / and each contender page alone under /bench/<lib>/ of one temp dir,
 * as an app ships: built together, the pages shared chunks, so a page loaded as many files as the
 * other pages' imports split it into (six for shared-fetch's, one or two for the others'), which
 * cost it time a real app's own build would not (Measured in a real browser, README).
 */
export async function buildPages(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const pages = await buildTestPage();
  for (const lib of Object.keys(CONTENDERS) as Lib[]) await buildPageAlone(pages.dir, pathOf(lib), lib);
  return pages;
}

export type BenchPageConfig = { api: string; name: string; ws?: string; room?: string; interval?: number; stale?: number };

export function benchUrl(host: CountingHost, lib: Lib, config: BenchPageConfig): string {
  const q = new URLSearchParams({ api: config.api, name: config.name });
  if (config.ws) q.set("ws", config.ws);
  if (config.room) q.set("room", config.room);
  if (config.interval) q.set("interval", String(config.interval));
  if (config.stale) q.set("stale", String(config.stale));
  return `${host.origin}/${pathOf(lib)}/${lib}.html?${q}`;
}

type Waiter = { resolve: () => void; reject: (error: Error) => void };
type Signals = { seen: Set<string>; waiting: Map<string, Set<Waiter>>; failure?: Error };
const signalsOf = new WeakMap<Page, Signals>();

/** Hears the page's `bench:<name>` console signals (probe.ts) from before its navigation. */
function listenForSignals(page: Page): void {
  const s: Signals = { seen: new Set(), waiting: new Map() };
  signalsOf.set(page, s);
  page.on("console", (message) => {
    const text = message.text();
    if (message.type() !== "debug" || !text.startsWith("bench:")) return;
    const name = text.slice("bench:".length);
    s.seen.add(name);
    for (const w of s.waiting.get(name) ?? []) w.resolve();
    s.waiting.delete(name);
  });
  page.on("pageerror", (error) => {
    s.failure ??= error;
    // Only the mount waits on errors (as Tab.ready did): data may still come after one.
    for (const w of s.waiting.get("ready") ?? []) w.reject(new Error(`page error before mount: ${error.message}`));
    s.waiting.delete("ready");
  });
}

/**
 * Resolves when a tab opened by openBenchTabs signalled `name` ("ready": mounted; "data": data in
 * its DOM). Unlike Tab.waitForData it evaluates nothing in the page and polls nothing there, so
 * the harness adds no work to the boot it measures.
 */
export function signalled(tab: Tab, name: "ready" | "data", timeoutMs = 30_000): Promise<void> {
  const s = signalsOf.get(tab.page);
  if (!s) return Promise.reject(new Error(`${tab.name}: not opened by openBenchTabs, so its signals are not heard`));
  if (s.seen.has(name)) return Promise.resolve();
  if (name === "ready" && s.failure) return Promise.reject(new Error(`${tab.name}: page error before mount: ${s.failure.message}`));
  let set = s.waiting.get(name);
  if (!set) s.waiting.set(name, (set = new Set()));
  const waiters = set;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiters.delete(waiter);
      reject(new Error(`${tab.name}: no ${name} signal within ${timeoutMs} ms`));
    }, timeoutMs);
    const waiter: Waiter = {
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(new Error(`${tab.name}: ${error.message}`));
      },
    };
    waiters.add(waiter);
  });
}

/** Every tab shows data (signalled, see `signalled`). */
export function allShowData(tabs: Tab[], timeoutMs?: number): Promise<void[]> {
  return Promise.all(tabs.map((t) => signalled(t, "data", timeoutMs)));
}

/**
 * Opens `n` tabs of `url`: pages are created first, then navigated all at once (staggerMs 0) or
 * one every staggerMs. Resolves once every tab mounted its page.
 */
export async function openBenchTabs(
  context: BrowserContext,
  url: string,
  n: number,
  staggerMs = 0,
  prefix = "tab",
  beforeNavigation?: (page: Page) => Promise<void>,
): Promise<Tab[]> {
  const pages = await Promise.all(Array.from({ length: n }, () => context.newPage()));
  if (beforeNavigation) await Promise.all(pages.map(beforeNavigation));
  for (const page of pages) listenForSignals(page);
  const tabs = pages.map((page, i) => new Tab(page, context, `${prefix}${i}`));
  const start = performance.now();
  await Promise.all(
    tabs.map(async (t, i) => {
      const wait = start + i * staggerMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await t.page.goto(url, { waitUntil: "domcontentloaded" });
    }),
  );
  await Promise.all(tabs.map((t) => signalled(t, "ready")));
  return tabs;
}

/**
 * Main-thread CPU of a page (CDP Performance metrics on thread ticks: time the renderer's main
 * thread ran, not wall time), from before its navigation: call `read` once the figure's moment came.
 */
export async function mainThreadCpu(page: Page): Promise<{ read: () => Promise<number> }> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  return {
    read: async () => {
      const { metrics } = await cdp.send("Performance.getMetrics");
      const task = metrics.find((m) => m.name === "TaskDuration");
      if (!task) throw new Error("CDP Performance.getMetrics reported no TaskDuration");
      return task.value * 1000;
    },
  };
}

export type TabMarks = {
  t0: number;
  marks: Record<string, number>;
  fetches: number[];
  docUpdates: number;
  channelMessages: number;
  renders: number;
  lockGrants: { kind: string; at: number }[];
};

/** The probe's record of one tab (page epoch ms). */
export function marksOf(tab: Tab): Promise<TabMarks> {
  return tab.page.evaluate(() => {
    const w = window as unknown as BenchWindow;
    return {
      t0: w.__t0,
      marks: w.__marks,
      fetches: w.__fetches,
      docUpdates: w.__docUpdates,
      channelMessages: w.__channelMessages,
      renders: w.__renders,
      lockGrants: w.__lockGrants,
    };
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
