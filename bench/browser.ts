/**
 * Browser figures, measured with the e2e harness (test/browser): real chromium tabs and contexts
 * against the counting host on 127.0.0.1.
 *
 *   npm run bench:browser            (RUNS=5 by default; LEASE_MS=1500)
 *
 * - takeover within a browser: CDP Page.crash of the claimant tab → host receives the 2nd request
 * - takeover across devices: claimant's browser context closed → host receives the 2nd request
 * - follower shows data: host sends the claimant's answer → the follower tab's DOM shows the data
 * - two devices at once (booting together / both up and asking together): requests per run
 * - requests per refetch interval: K tabs polling with refetchInterval, for shared-fetch, TanStack
 *   Query alone and TanStack Query + its broadcast plugin (JSON lines, ../shared/BENCH.md)
 *
 *   FIGURES=interval npm run bench:browser   runs only the last one (INTERVAL_MS=1000, 5 intervals)
 */
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import type { Browser } from "playwright-core";
import { startSyncServer, type SyncServer } from "../test/sync/ws-server.ts";
import { startHost, type CountingHost } from "../test/browser/host.ts";
import { findChromium } from "../test/browser/chromium.ts";
import { buildTestPage, findClaimant, launchBrowser, openTab, openTabs, uniqueName, waitUntil, type Tab } from "../test/browser/harness.ts";
import { DEFAULT_SETTLE_MS } from "../src/core/store.ts";

const RUNS = Number(process.env.RUNS ?? 5);
const LEASE_MS = Number(process.env.LEASE_MS ?? 1500);
/** Runs of the two-devices-at-once duplicate counts (cheap: one short request each). */
const SIM_RUNS = Number(process.env.SIM_RUNS ?? 10);

type Row = { name: string; samples: number[]; note: string };

/**
 * Crash of the claimant among 3 tabs → the host sees the 2nd request. `afterUp`: the request
 * starts only after every tab is up (start=manual), i.e. after each store holds its Web Lock.
 */
async function withinBrowser(browser: Browser, host: CountingHost, afterUp = false): Promise<number> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName(afterUp ? "bench-crash-late" : "bench-crash")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const tabs = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: LEASE_MS, manualStart: afterUp }, 3);
    if (afterUp) await Promise.all(tabs.map((t) => t.start()));
    await host.waitForCall(api, 1);
    const claimant = await findClaimant(tabs);
    const survivors = tabs.filter((t) => t !== claimant);
    await Promise.all(survivors.map((t) => t.waitForStatus("pending")));
    const crashedAt = await claimant.crash();
    const second = await host.waitForCall(api, 2, 30_000);
    await Promise.all(survivors.map((t) => t.waitForData()));
    if (host.count(api) !== 2) throw new Error(`expected 2 requests, host saw ${host.count(api)}`);
    return second.at - crashedAt;
  } finally {
    await context.close();
    host.dropOpen();
  }
}

async function acrossDevices(browser: Browser, host: CountingHost, sync: SyncServer): Promise<number> {
  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const api = `/api/${uniqueName("bench-devices")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const config = { api, tabs: uniqueName("tabs"), leaseMs: LEASE_MS, ws: sync.url, room: uniqueName("room") };
    // B opens once A's request is in flight (see simultaneous() for devices that boot together).
    const claimant = await openTab(contexts[0]!, host, config, "deviceA");
    await claimant.ready();
    await host.waitForCall(api, 1);
    await waitUntil("device A dispatched", () => claimant.dispatched());
    const other = await openTab(contexts[1]!, host, config, "deviceB");
    await other.ready();
    await other.waitForStatus("pending");
    const closedAt = performance.now();
    const closing = claimant.context.close();
    claimant.crashed = true;
    const second = await host.waitForCall(api, 2, 30_000);
    await closing;
    await other.waitForData();
    if (host.count(api) !== 2) throw new Error(`expected 2 requests, host saw ${host.count(api)}`);
    return second.at - closedAt;
  } finally {
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    host.dropOpen();
  }
}

async function followerShowsData(browser: Browser, host: CountingHost): Promise<{ follower: number; claimant: number; rtt: number }> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName("bench-follow")}`;
    host.plan(api, ["hold"]);
    const tabs = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: LEASE_MS }, 2);
    const call = await host.waitForCall(api, 1);
    const claimant = await findClaimant(tabs);
    const follower = tabs.find((t) => t !== claimant)!;
    await follower.waitForStatus("pending");
    // Page timestamps are the page's timeOrigin + now(): map them onto our clock first.
    const clocks = new Map<Tab, { offset: number; rtt: number }>();
    for (const t of tabs) clocks.set(t, await t.clockOffset());
    const sentAt = performance.timeOrigin + call.respond()!;
    await Promise.all(tabs.map((t) => t.waitForData()));
    const shownAt = async (t: Tab) => (await t.history()).find((h) => h.hasData)!.at - clocks.get(t)!.offset - sentAt;
    return {
      follower: await shownAt(follower),
      claimant: await shownAt(claimant),
      rtt: Math.max(...[...clocks.values()].map((c) => c.rtt)),
    };
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/**
 * Two devices at the same moment, through the sync server: how many requests reach the host.
 * "boot": both pages load together and ask as soon as they mount; "ask": both are up and synced,
 * then both ask at once (the race the settle window is for).
 */
async function simultaneous(browser: Browser, host: CountingHost, sync: SyncServer, mode: "boot" | "ask"): Promise<number> {
  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const api = `/api/${uniqueName(`bench-sim-${mode}`)}`;
    host.plan(api, [{ delayMs: 300 }]);
    const config = {
      api,
      tabs: uniqueName("tabs"),
      leaseMs: LEASE_MS,
      ws: sync.url,
      room: uniqueName("room"),
      manualStart: mode === "ask",
    };
    const devices: Tab[] = await Promise.all(contexts.map((c, i) => openTab(c, host, config, `device${i}`)));
    await Promise.all(devices.map((d) => d.ready()));
    if (mode === "ask") await Promise.all(devices.map((d) => d.start()));
    await Promise.all(devices.map((d) => d.waitForData()));
    return host.count(api);
  } finally {
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    host.dropOpen();
  }
}

const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 1000);
const INTERVALS = 5;
const CONTENDERS = { shared: "shared-fetch", tanstack: "tanstack-query", broadcast: "tanstack-query+broadcast" } as const;

/** K tabs of one context polling every INTERVAL_MS: host requests per interval over INTERVALS intervals. */
async function perInterval(browser: Browser, host: CountingHost, lib: keyof typeof CONTENDERS, tabs: number): Promise<number> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName(`bench-poll-${lib}`)}`;
    const pages = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: LEASE_MS, interval: INTERVAL_MS, lib }, tabs);
    await Promise.all(pages.map((t) => t.waitForData()));
    // Let the opening burst pass, then count whole intervals by the host's clock.
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
    const from = performance.now();
    await new Promise((r) => setTimeout(r, INTERVAL_MS * INTERVALS));
    const counted = host.calls(api).filter((c) => c.at > from && c.at <= from + INTERVAL_MS * INTERVALS).length;
    return counted / INTERVALS;
  } finally {
    await context.close();
    host.dropOpen();
  }
}

async function requestsPerInterval(browser: Browser, host: CountingHost): Promise<void> {
  for (const tabs of [2, 8]) {
    for (const lib of ["shared", "tanstack", "broadcast"] as const) {
      const value = await perInterval(browser, host, lib, tabs);
      const params = { tabs, intervalMs: INTERVAL_MS, intervals: INTERVALS };
      console.log(
        JSON.stringify({
          figure: "requests per refetch interval",
          contender: CONTENDERS[lib],
          params,
          value,
          unit: "requests",
          runs: 1,
          min: value,
          max: value,
        }),
      );
    }
  }
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

async function main(): Promise<void> {
  const page = await buildTestPage();
  const host = await startHost(page.dir);
  const sync = await startSyncServer();
  const browser = await launchBrowser();
  try {
    console.log(`$ npm run bench:browser   (node --import tsx bench/browser.ts)`);
    if (process.env.FIGURES === "interval") {
      await requestsPerInterval(browser, host);
      return;
    }
    console.log(
      `env: chromium ${browser.version()} (headless, ${findChromium().path}), node ${process.version}, ${cpus().length} cpus, ` +
        `runs ${RUNS} (simultaneous: ${SIM_RUNS}), leaseMs ${LEASE_MS}, host + y-websocket server on 127.0.0.1`,
    );
    const rows: Row[] = [
      { name: "takeover in one browser (Page.crash → 2nd request)", samples: [], note: "3 tabs, one context; request starts at mount" },
      { name: "  same, request started after the tabs are up", samples: [], note: "start=manual: claim made after the Web Lock is held" },
      {
        name: "takeover across devices (context close → 2nd request)",
        samples: [],
        note: "2 contexts, y-websocket; B opened once A's request was in flight",
      },
      { name: "follower shows data (answer sent → follower DOM)", samples: [], note: "2 tabs, one context" },
      { name: "claimant shows data (answer sent → claimant DOM)", samples: [], note: "same runs" },
    ];
    for (let i = 0; i < RUNS; i++) rows[0]!.samples.push(await withinBrowser(browser, host));
    for (let i = 0; i < RUNS; i++) rows[1]!.samples.push(await withinBrowser(browser, host, true));
    for (let i = 0; i < RUNS; i++) rows[2]!.samples.push(await acrossDevices(browser, host, sync));
    let clockRtt = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = await followerShowsData(browser, host);
      rows[3]!.samples.push(r.follower);
      rows[4]!.samples.push(r.claimant);
      clockRtt = Math.max(clockRtt, r.rtt);
    }
    const sims: Record<"boot" | "ask", number[]> = { boot: [], ask: [] };
    for (const mode of ["boot", "ask"] as const)
      for (let i = 0; i < SIM_RUNS; i++) sims[mode].push(await simultaneous(browser, host, sync, mode));
    const fmt = (n: number) => n.toFixed(1).padStart(8);
    const width = Math.max(...rows.map((r) => r.name.length));
    console.log("");
    console.log(`${"measure".padEnd(width)} | median ms |   min ms |   max ms | setup`);
    console.log(`${"-".repeat(width)}-|-----------|----------|----------|------`);
    for (const row of rows) {
      const s = stats(row.samples);
      console.log(`${row.name.padEnd(width)} | ${fmt(s.median)}  | ${fmt(s.min)} | ${fmt(s.max)} | ${row.note}`);
    }
    console.log(`(page→node clock mapping for the "shows data" rows: ±${(clockRtt / 2).toFixed(1)} ms at worst)`);
    const dup = (xs: number[]) => `${xs.filter((x) => x > 1).length} of ${xs.length} runs sent 2+ requests (per run: ${xs.join(" ")})`;
    console.log("");
    console.log(`2 devices booting at once (settle window ${DEFAULT_SETTLE_MS} ms): ${dup(sims.boot)}`);
    console.log(`2 devices up, asking at once:                    ${dup(sims.ask)}`);
    console.log("");
    await requestsPerInterval(browser, host);
    console.log("");
    console.log(
      `samples (ms): ${rows.map((r) => `${r.name.split(" (")[0]}: [${r.samples.map((x) => x.toFixed(1)).join(", ")}]`).join("; ")}`,
    );
  } finally {
    await browser.close().catch(() => {});
    await sync.close().catch(() => {});
    await host.close();
    await page.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
