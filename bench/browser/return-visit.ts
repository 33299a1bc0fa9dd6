/**
 * A return visit: K tabs of one browser profile get data, all of them close, and K tabs of the
 * same app open again at once. Within the staleTime a persisted result is the data; after it, the
 * persisted result shows while one request (shared-fetch) or one per tab (TanStack's persister)
 * revalidates it. Contenders without persistence fetch again either way.
 */
import type { Browser } from "playwright-core";
import { uniqueName } from "../../test/browser/harness.ts";
import type { CountingHost } from "../../test/browser/host.ts";
import { allShowData, benchUrl, CONTENDERS, marksOf, openBenchTabs, settings, sleep, type Lib } from "./setup.ts";
import { fmt, printTable, type Figures, type Row } from "./stats.ts";

export const RETURN_LIBS: Lib[] = ["tanstack", "persist", "leader", "shared"];
const TABS = 4;
/** The staleTime of the "after staleTime" case: the first visit's result is older when the tabs return. */
const STALE_MS = 1000;
/** First visit's data → its tabs close: TanStack's persister writes at most once a second (throttleTime). */
const PERSIST_WAIT_MS = 1500;
/** Tabs closed → the return visit. */
const GAP_MS = 300;

const CASES = [
  { name: "within staleTime", stale: undefined },
  { name: "after staleTime", stale: STALE_MS },
] as const;

type Visit = { slowestData: number; slowestCurrent: number; requests: number };

/** One sample: the first visit, then the return visit measured. */
async function returnVisit(browser: Browser, host: CountingHost, lib: Lib, stale: number | undefined): Promise<Visit> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName(`bench-return-${lib}`)}`;
    host.plan(api, [{ delayMs: settings.hostMs }]);
    const url = benchUrl(host, lib, { api, name: uniqueName("app"), ...(stale ? { stale } : {}) });
    const first = await openBenchTabs(context, url, TABS, 0, "first");
    await allShowData(first);
    await sleep(PERSIST_WAIT_MS);
    await Promise.all(first.map((t) => t.page.close()));
    await sleep(GAP_MS);
    const before = host.count(api);
    const again = await openBenchTabs(context, url, TABS, 0, "again");
    await allShowData(again);
    // Revalidations answer in hostMs: count them, and let each tab show the value they bring.
    await sleep(settings.hostMs + 500);
    const shown = await Promise.all(
      again.map(async (t) => {
        const [m, text] = await Promise.all([
          marksOf(t),
          t.page.evaluate(() => document.querySelector('[data-testid="data"]')?.textContent ?? ""),
        ]);
        const current = m.marks[`data=${text}`];
        if (m.marks.data === undefined || current === undefined)
          throw new Error(`${CONTENDERS[lib]}: ${t.name} marked no data for ${text}`);
        return { data: m.marks.data - m.t0, current: current - m.t0 };
      }),
    );
    return {
      slowestData: Math.max(...shown.map((s) => s.data)),
      slowestCurrent: Math.max(...shown.map((s) => s.current)),
      requests: host.count(api) - before,
    };
  } finally {
    await context.close();
    host.dropOpen();
  }
}

export async function returnVisits(browser: Browser, host: CountingHost, figures: Figures, run: number): Promise<void> {
  for (const c of CASES) {
    for (const lib of RETURN_LIBS) {
      const v = await returnVisit(browser, host, lib, c.stale);
      const params = { tabs: TABS, case: c.name, hostMs: settings.hostMs, ...(c.stale ? { staleMs: c.stale } : {}) };
      const who = CONTENDERS[lib];
      figures.add("return visit: slowest tab time to data", who, params, "ms", run, v.slowestData);
      figures.add("return visit: slowest tab time to its final data", who, params, "ms", run, v.slowestCurrent);
      figures.add("return visit: requests", who, params, "requests", run, v.requests);
    }
  }
}

export function printReturnVisits(rows: Row[]): void {
  const lines: string[][] = [];
  for (const c of CASES) {
    for (const [figure, unit] of [
      ["slowest tab time to data", "ms"],
      ["slowest tab time to its final data", "ms"],
      ["requests", "requests"],
    ]) {
      const cells = RETURN_LIBS.map((lib) =>
        rows.find((r) => r.figure === `return visit: ${figure}` && r.contender === CONTENDERS[lib] && r.params.case === c.name),
      );
      if (cells.every((r) => r === undefined)) continue;
      lines.push([`${figure}, ${c.name} (${unit})`, ...cells.map(fmt)]);
    }
  }
  if (!lines.length) return;
  console.log(`return visit: ${TABS} tabs get data, close, and ${TABS} open again at once; median (min–max) over ${settings.runs} runs`);
  printTable(["", ...RETURN_LIBS.map((lib) => CONTENDERS[lib])], lines);
  console.log("");
}
