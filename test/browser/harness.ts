/**
 * Harness for the browser tests and bench/browser.ts: builds the test page with Vite, launches the
 * chromium that chromium.ts finds through playwright-core, opens tabs on the page and reads their state.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { build } from "vite";
import type { CountingHost } from "./host.ts";
import type { ClaimLogEntry, HistoryEntry, PageEvent, PageWindow } from "./page/types.ts";

import { CHROMIUM_ARGS, findChromium } from "./chromium.ts";

export type { ClaimLogEntry, HistoryEntry, PageEvent };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium().path, args: CHROMIUM_ARGS });
}

const pageRoot = fileURLToPath(new URL("./page/", import.meta.url));

/** Builds test/browser/page into a fresh temp dir (Vite JS API); returns the dir and a remover. */
export function buildTestPage(): Promise<{ dir: string; remove: () => Promise<void> }> {
  return buildPage(pageRoot, "shared-fetch-e2e-page-");
}

/** Builds the page at `root` into a fresh temp dir named with `prefix`; `extra` adds Vite settings. */
export async function buildPage(
  root: string,
  prefix: string,
  extra: { worker?: { format: "es" } } = {},
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await build({
    configFile: false,
    root,
    base: "/",
    logLevel: "warn",
    mode: "production",
    plugins: [react()],
    ...extra,
    build: { outDir: dir, emptyOutDir: true, minify: false, sourcemap: true, reportCompressedSize: false },
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export type PageConfig = {
  /** API path on the host, e.g. "/api/s1". */
  api: string;
  /** connectTabs name (BroadcastChannel group + IndexedDB db). */
  tabs: string;
  leaseMs?: number;
  ws?: string;
  room?: string;
  presence?: "tabs" | "peers";
  /** The hook stays disabled until `tab.start()`. */
  manualStart?: boolean;
  /** The store created at once, as in the README's Usage, instead of after the connectors synced. */
  storeAtOnce?: boolean;
  /** TanStack options of the page's query (see test/browser/page/main.tsx). */
  stale?: number;
  interval?: number;
  retry?: number;
  retryDelay?: number;
  lib?: "shared" | "tanstack" | "broadcast";
};

export function pageUrl(host: CountingHost, config: PageConfig): string {
  const q = new URLSearchParams({ api: config.api, tabs: config.tabs });
  if (config.leaseMs !== undefined) q.set("lease", String(config.leaseMs));
  if (config.ws) q.set("ws", config.ws);
  if (config.room) q.set("room", config.room);
  if (config.presence) q.set("presence", config.presence);
  if (config.manualStart) q.set("start", "manual");
  if (config.storeAtOnce) q.set("store", "at-once");
  for (const name of ["stale", "interval", "retry", "retryDelay", "lib"] as const)
    if (config[name] !== undefined) q.set(name, String(config[name]));
  return `${host.origin}/?${q}`;
}

/** One tab of the test page, and what the test reads from it. */
export class Tab {
  crashed = false;
  /** console.error / console.warn messages and uncaught page errors, as they happened. */
  readonly consoleProblems: string[] = [];
  constructor(
    readonly page: Page,
    readonly context: BrowserContext,
    readonly name: string,
  ) {
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") this.consoleProblems.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => this.consoleProblems.push(`pageerror: ${error.message}`));
  }

  /** Waits until the page mounted its store (after connectTabs/connectPeers synced). */
  async ready(timeoutMs = 30_000): Promise<void> {
    await this.page.waitForFunction(
      () => (window as unknown as PageWindow).__ready === true || (window as unknown as PageWindow).__errors.length > 0,
      undefined,
      { timeout: timeoutMs },
    );
    const errors = await this.errors();
    if (errors.length) throw new Error(`${this.name}: page errors: ${errors.join("; ")}`);
  }

  text(testId: string): Promise<string> {
    return this.page.getByTestId(testId).innerText();
  }

  /** status, data (raw JSON text, "" when none) and claim fields, read from the DOM in one go. */
  state(): Promise<{ status: string; data: string; mine: string; replica: string }> {
    // No named inner functions in evaluated code: tsx (esbuild keepNames) would wrap them in
    // `__name(...)`, which does not exist in the page.
    return this.page.evaluate(() => {
      const [status, data, mine] = ["status", "data", "claim-mine"].map(
        (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? "",
      );
      return { status: status!, data: data!, mine: mine!, replica: document.body.dataset.replica ?? "" };
    });
  }

  history(): Promise<HistoryEntry[]> {
    return this.page.evaluate(() => (window as unknown as PageWindow).__history);
  }

  events(): Promise<PageEvent[]> {
    return this.page.evaluate(() => (window as unknown as PageWindow).__events);
  }

  claimLog(): Promise<ClaimLogEntry[]> {
    return this.page.evaluate(() => (window as unknown as PageWindow).__claimLog);
  }

  errors(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as PageWindow).__errors);
  }

  /** With `manualStart`: enables the hook now. */
  async start(): Promise<void> {
    await this.page.waitForFunction(() => typeof (window as unknown as PageWindow).__start === "function");
    await this.page.evaluate(() => (window as unknown as PageWindow).__start!());
  }

  /** True once this tab's store dispatched the request (it is the one fetching). */
  async dispatched(): Promise<boolean> {
    return (await this.events()).some((e) => e.type === "dispatched");
  }

  /** Waits for the DOM to show data (any, or containing `contains`). */
  async waitForData(timeoutMs = 30_000, contains?: string): Promise<void> {
    await this.page.waitForFunction(
      (needle) => {
        const text = document.querySelector('[data-testid="data"]')?.textContent ?? "";
        return text !== "" && (needle === null || text.includes(needle));
      },
      contains ?? null,
      { timeout: timeoutMs, polling: "raf" },
    );
  }

  async waitForStatus(status: string, timeoutMs = 30_000): Promise<void> {
    await this.page.waitForFunction((s) => document.querySelector('[data-testid="status"]')?.textContent === s, status, {
      timeout: timeoutMs,
    });
  }

  /**
   * Page clock minus node clock, in ms (both read as timeOrigin + now(); their bases differ by
   * tens of ms between processes). Min-RTT estimate over `samples` round-trips: error ≤ RTT/2.
   */
  async clockOffset(samples = 15): Promise<{ offset: number; rtt: number }> {
    let best = { offset: 0, rtt: Infinity };
    for (let i = 0; i < samples; i++) {
      const before = performance.timeOrigin + performance.now();
      const pageNow = await this.page.evaluate(() => performance.timeOrigin + performance.now());
      const after = performance.timeOrigin + performance.now();
      if (after - before < best.rtt) best = { offset: pageNow - (before + after) / 2, rtt: after - before };
    }
    return best;
  }

  /** Renderer crash through CDP (`Page.crash`); returns node performance.now() just before it. */
  async crash(): Promise<number> {
    const cdp = await this.context.newCDPSession(this.page);
    this.crashed = true;
    const at = performance.now();
    cdp.send("Page.crash").catch(() => {});
    return at;
  }
}

export async function openTab(context: BrowserContext, host: CountingHost, config: PageConfig, name = "tab"): Promise<Tab> {
  const page = await context.newPage();
  const tab = new Tab(page, context, name);
  await page.goto(pageUrl(host, config), { waitUntil: "domcontentloaded" });
  return tab;
}

/** Opens `n` tabs at once (navigations in parallel) and waits until each mounted its store. */
export async function openTabs(context: BrowserContext, host: CountingHost, config: PageConfig, n: number, prefix = "tab"): Promise<Tab[]> {
  const pages = await Promise.all(Array.from({ length: n }, () => context.newPage()));
  const tabs = pages.map((page, i) => new Tab(page, context, `${prefix}${i}`));
  await Promise.all(tabs.map((t) => t.page.goto(pageUrl(host, config), { waitUntil: "domcontentloaded" })));
  await Promise.all(tabs.map((t) => t.ready()));
  return tabs;
}

/** Polls `probe` until it returns a value other than undefined/false, or throws after the deadline. */
export async function waitUntil<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 30_000,
  intervalMs = 20,
): Promise<Exclude<T, false | undefined>> {
  const deadline = performance.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (last !== undefined && last !== false) return last as Exclude<T, false | undefined>;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The tab whose store dispatched the request (waits for exactly one such tab). */
export async function findClaimant(tabs: Tab[], timeoutMs = 30_000): Promise<Tab> {
  return waitUntil(
    "a tab that dispatched the request",
    async () => {
      const live = tabs.filter((t) => !t.crashed);
      const flags = await Promise.all(live.map((t) => t.dispatched()));
      const hits = live.filter((_, i) => flags[i]);
      if (hits.length > 1) throw new Error(`more than one tab dispatched: ${hits.map((t) => t.name).join(", ")}`);
      return hits[0];
    },
    timeoutMs,
  );
}

/**
 * States a user should never see: once the tab showed work (pending) or data, any later state that
 * is neither pending nor carries data ("done, nothing here"). Before that, the very first render
 * may be idle: the hook has not asked yet.
 */
export function historyViolations(history: HistoryEntry[]): HistoryEntry[] {
  const start = history.findIndex((e) => e.status === "pending" || e.hasData);
  if (start < 0) return history.filter((e) => e.status !== "idle" || e.hasData);
  return history.slice(start).filter((e) => e.status !== "pending" && !e.hasData);
}

/**
 * Invariant 4 as one tab saw it: a key never went from claimed to unclaimed without a recorded
 * result or error (a takeover rewrites the claim; it never passes through "no claim").
 */
export function claimGaps(log: ClaimLogEntry[]): ClaimLogEntry[] {
  return log.filter((e) => e.holder === null && !e.recorded);
}

/** Unique names per test so IndexedDB databases, channels, rooms and API paths never mix. */
let seq = 0;
export function uniqueName(prefix: string): string {
  seq += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${seq}`;
}
