/**
 * Browser figures in real headless chromium (the e2e harness of test/browser) against the counting
 * host and the y-websocket server on 127.0.0.1, contenders side by side in one run: TanStack Query
 * alone, + its broadcast plugin, a Web Locks leader page, and shared-fetch as its README shows it
 * (bench/browser/page): per-tab replicas (Usage) and, for time to data, the SharedWorker replica
 * too, and the leader page carrying shared-fetch's code unrun (the floor: what loading it costs).
 * The return visit (tabs closed and opened again) adds TanStack Query + its persister.
 * Every figure is a JSON line (../shared/BENCH.md); tables and the targets' verdicts follow.
 *
 *   npm run bench:browser
 *   REPS=1 SAMPLES=1 BOOT_RUNS=4 DEVICE_BOOTS=4 RUNS=2 npm run bench:browser     (a quick run)
 *   FIGURES=ttd,crash npm run bench:browser       (ttd crash startup boot devices takeover follower interval return worker)
 *   LIBS=leader,payload,shared FIGURES=ttd npm run bench:browser   (time to data of some contenders only)
 *   LIBS=leader,payload,beside,after,shared FIGURES=ttd npm run bench:browser   (with the floors of a lazy boot: the
 *     leader page loading shared-fetch's replica by import() beside its request, or after its data; only when named)
 *
 * Settings (env): REPS 3 × SAMPLES 3 per figure, HOST_MS 300, TABS 1,2,4,8 (1: a lone tab, opened once), STAGGER_MS 100,
 * CRASH_TABS 3, BOOT_TABS 4, BOOT_RUNS 10, DEVICE_BOOTS 20, RUNS 5, LEASE_MS 1500, INTERVAL_MS 1000,
 * COMPILE_HINTS 0 (1: every chunk of every contender's page starts with V8's `//# allFunctionsCalledOnLoad`).
 */
import { cpus, loadavg } from "node:os";
import { launchBrowser } from "../test/browser/harness.ts";
import { startHost } from "../test/browser/host.ts";
import { findChromium } from "../test/browser/chromium.ts";
import { startSyncServer } from "../test/sync/ws-server.ts";
import { crashDuplicateRows, crashes } from "./browser/crash.ts";
import { bootDuplicates, deviceDuplicates } from "./browser/duplicates.ts";
import { devicesAskingTogether, followerShowsData, requestsPerInterval, takeoverAcrossDevices } from "./browser/kept.ts";
import { printReturnVisits, returnVisits } from "./browser/return-visit.ts";
import { printSummary } from "./browser/summary.ts";
import { buildPages, CONTENDERS, settings } from "./browser/setup.ts";
import { buildStartupPages, printStartup, startupCosts } from "./browser/startup.ts";
import { Figures, printJson, type Row } from "./browser/stats.ts";
import { targets } from "./browser/targets.ts";
import { timeToData, TTD_LIBS } from "./browser/time-to-data.ts";

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

async function main(): Promise<void> {
  const pages = await buildPages();
  if (settings.figures.has("startup")) await buildStartupPages(pages.dir);
  const host = await startHost(pages.dir);
  const sync = await startSyncServer();
  const browser = await launchBrowser();
  const started = Date.now();
  const rows: Row[] = [];
  // Printed as each part ends, so a run that fails late still leaves its figures.
  const emit = (more: Row[]) => {
    rows.push(...more);
    printJson(more);
  };
  const want = settings.figures;
  try {
    console.log(`$ npm run bench:browser   (node --import tsx bench/browser.ts)`);
    console.log(
      `env: chromium ${browser.version()} (headless, ${findChromium().path}), node ${process.version}, ${cpus().length} cpus, ` +
        `load average ${load()} (1/5/15 min); reps ${settings.reps} × samples ${settings.samples}, host delay ${settings.hostMs} ms, ` +
        `tabs ${settings.tabCounts.join("/")}, stagger ${settings.staggerMs} ms; host + y-websocket server on 127.0.0.1; figures ${[...want].join(",")}` +
        (settings.compileHints ? "; every page's chunks start with //# allFunctionsCalledOnLoad (COMPILE_HINTS=1)" : "") +
        (process.env.LIBS ? `; time to data of ${TTD_LIBS.map((lib) => CONTENDERS[lib]).join(", ")} (LIBS=${process.env.LIBS})` : ""),
    );
    // The time-to-data targets are ratios of shared-fetch to the leader: without both there is nothing to judge.
    const missing = (["leader", "shared"] as const).filter((lib) => !TTD_LIBS.includes(lib));
    if (process.env.LIBS && missing.length)
      console.log(
        `warning: LIBS leaves out ${missing.map((lib) => CONTENDERS[lib]).join(" and ")}: the time-to-data targets cannot be judged`,
      );
    const sampled = new Figures();
    for (let rep = 0; rep < settings.reps; rep++) {
      if (want.has("ttd")) await timeToData(browser, host, sampled, rep);
      if (want.has("crash")) await crashes(browser, host, sampled, rep);
      if (want.has("startup")) await startupCosts(browser, host, sampled, rep);
    }
    emit(sampled.rows());
    emit(crashDuplicateRows());
    if (want.has("boot")) emit(await bootDuplicates(browser, host));
    if (want.has("devices")) {
      emit([await deviceDuplicates(browser, host, sync)]);
      emit([await devicesAskingTogether(browser, host, sync)]);
    }
    const kept = new Figures();
    for (let i = 0; i < settings.runs; i++) {
      if (want.has("takeover")) {
        kept.add(
          "takeover across devices (context closed → 2nd request)",
          "shared-fetch",
          { leaseMs: settings.leaseMs },
          "ms",
          i,
          await takeoverAcrossDevices(browser, host, sync),
        );
      }
      if (want.has("follower")) {
        const r = await followerShowsData(browser, host);
        kept.add("follower shows data (answer sent → DOM)", "shared-fetch", { tabs: 2 }, "ms", i, r.follower);
        kept.add("claimant shows data (answer sent → DOM)", "shared-fetch", { tabs: 2 }, "ms", i, r.claimant);
      }
    }
    if (want.has("interval")) await requestsPerInterval(browser, host, kept);
    for (let i = 0; i < settings.runs && want.has("return"); i++) await returnVisits(browser, host, kept, i);
    emit(kept.rows());
    const { ratios, checks, verdicts } = targets(rows);
    printJson([...ratios, ...checks]);
    console.log("");
    printStartup(rows);
    printSummary(rows, ratios, verdicts);
    printReturnVisits(rows);
    console.log(`\nload average at the end ${load()}; ${((Date.now() - started) / 60_000).toFixed(1)} min`);
  } finally {
    await browser.close().catch(() => {});
    await sync.close().catch(() => {});
    await host.close();
    await pages.remove();
  }
}

main()
  // Per-tab replicas vs the SharedWorker replica (bench/browser-worker.ts, also `npm run bench:worker`), after the rest.
  .then(async () => {
    if (settings.figures.has("worker")) await import("./browser-worker.ts");
  })
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
