/**
 * Startup of one tab alone on a fresh profile, each page its own minified bundle: module
 * evaluation of what every contender page loads (React, TanStack Query) and of the shared-fetch
 * page's imports (that, plus shared-fetch with Yjs, y-protocols and y-indexeddb); then that page's
 * connectTabs and createSharedFetchStore, timed one by one. The main-thread work
 * a tab does before it can ask for its first claim's lock, beside what the lock leader's page does
 * before asking for its lock (the first set only). With K tabs booting at once on a few cores,
 * every tab's share of it is paid K times over.
 */
import type { Browser } from "playwright-core";
import { uniqueName } from "../../test/browser/harness.ts";
import type { CountingHost } from "../../test/browser/host.ts";
import type { StartupTimings } from "./page/startup-report.ts";
import { buildPageAlone, settings } from "./setup.ts";
import { find, fmt, printTable, type Figures, type Row } from "./stats.ts";

const VARIANTS = {
  react: "tanstack-query",
  shared: "shared-fetch",
} as const;
type Variant = keyof typeof VARIANTS;

export const STARTUP_FIGURES = {
  modules: "module evaluation at startup (one tab alone)",
  connectTabs: "connectTabs() at startup (one tab alone)",
  createStore: "createSharedFetchStore() at startup (one tab alone)",
} as const;

/** One bundle per page, so no chunk one page shares with another is evaluated before its clock starts. */
export async function buildStartupPages(dir: string): Promise<void> {
  for (const variant of Object.keys(VARIANTS) as Variant[]) {
    await buildPageAlone(dir, `startup/${variant}`, `startup-${variant}`);
  }
}

async function startupSample(browser: Browser, host: CountingHost, variant: Variant): Promise<StartupTimings> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${host.origin}/startup/${variant}/startup-${variant}.html?name=${uniqueName("startup")}`);
    await page.waitForFunction(() => (window as unknown as { __startup?: unknown }).__startup !== undefined);
    return await page.evaluate(() => (window as unknown as { __startup: StartupTimings }).__startup);
  } finally {
    await context.close();
  }
}

export async function startupCosts(browser: Browser, host: CountingHost, figures: Figures, rep: number): Promise<void> {
  const variants = Object.keys(VARIANTS) as Variant[];
  for (let s = 0; s < settings.samples; s++) {
    // Rotated, so no variant always runs first on a cold browser.
    for (const variant of variants.map((_, i) => variants[(i + s) % variants.length]!)) {
      const t = await startupSample(browser, host, variant);
      const who = VARIANTS[variant];
      figures.add(STARTUP_FIGURES.modules, who, {}, "ms", rep, t.modules);
      if (t.connectTabs !== undefined) figures.add(STARTUP_FIGURES.connectTabs, who, {}, "ms", rep, t.connectTabs);
      if (t.createStore !== undefined) figures.add(STARTUP_FIGURES.createStore, who, {}, "ms", rep, t.createStore);
    }
  }
}

export function printStartup(rows: Row[]): void {
  if (!rows.some((r) => r.figure === STARTUP_FIGURES.modules)) return;
  console.log(`startup of one tab alone (fresh profile), ms: median (min–max) over ${settings.reps} repetitions`);
  const who = Object.values(VARIANTS);
  printTable(
    ["", "React + TanStack Query", "shared-fetch page"],
    Object.values(STARTUP_FIGURES).map((figure) => [
      figure.replace(" at startup (one tab alone)", ""),
      ...who.map((c) => fmt(find(rows, figure, c))),
    ]),
  );
  console.log("");
}
