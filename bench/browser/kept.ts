/**
 * Figures kept from the first browser bench, on the e2e test page (test/browser/page: store
 * created after the connectors synced, lease LEASE_MS): takeover across devices, the follower
 * showing data, two devices that are up asking at once; and requests per refetch interval on the
 * contender pages.
 */
import { performance } from "node:perf_hooks";
import type { Browser } from "playwright-core";
import { findClaimant, openTab, openTabs, uniqueName, waitUntil, type Tab } from "../../test/browser/harness.ts";
import type { CountingHost } from "../../test/browser/host.ts";
import type { SyncServer } from "../../test/sync/ws-server.ts";
import { allShowData, benchUrl, CONTENDERS, openBenchTabs, settings, sleep, type Lib } from "./setup.ts";
import { countRow, type Figures, type Row } from "./stats.ts";

/** Device A fetching (host hangs), B opened and pending; A's context closed → the host sees B's request. */
export async function takeoverAcrossDevices(browser: Browser, host: CountingHost, sync: SyncServer): Promise<number> {
  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const api = `/api/${uniqueName("bench-devices")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const config = { api, tabs: uniqueName("tabs"), leaseMs: settings.leaseMs, ws: sync.url, room: uniqueName("room") };
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
    if (host.count(api) !== 2) throw new Error(`takeover across devices: expected 2 requests, host saw ${host.count(api)}`);
    return second.at - closedAt;
  } finally {
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    host.dropOpen();
  }
}

/** Two tabs, the host holds the claimant's request, then answers: answer sent → each DOM shows it. */
export async function followerShowsData(browser: Browser, host: CountingHost): Promise<{ follower: number; claimant: number }> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName("bench-follow")}`;
    host.plan(api, ["hold"]);
    const tabs = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: settings.leaseMs }, 2);
    const call = await host.waitForCall(api, 1);
    const claimant = await findClaimant(tabs);
    const follower = tabs.find((t) => t !== claimant)!;
    await follower.waitForStatus("pending");
    const offsets = new Map<Tab, number>();
    for (const t of tabs) offsets.set(t, (await t.clockOffset()).offset);
    const sentAt = performance.timeOrigin + call.respond()!;
    await Promise.all(tabs.map((t) => t.waitForData()));
    const shownAt = async (t: Tab) => (await t.history()).find((h) => h.hasData)!.at - offsets.get(t)! - sentAt;
    return { follower: await shownAt(follower), claimant: await shownAt(claimant) };
  } finally {
    await context.close();
    host.dropOpen();
  }
}

/** Two devices up and synced, both asking at the same moment (start=manual): the settle window's race. */
async function askTogether(browser: Browser, host: CountingHost, sync: SyncServer): Promise<number> {
  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const api = `/api/${uniqueName("bench-sim-ask")}`;
    host.plan(api, [{ delayMs: settings.hostMs }]);
    const config = { api, tabs: uniqueName("tabs"), leaseMs: settings.leaseMs, ws: sync.url, room: uniqueName("room"), manualStart: true };
    const devices = await Promise.all(contexts.map((c, i) => openTab(c, host, config, `device${i}`)));
    await Promise.all(devices.map((d) => d.ready()));
    await Promise.all(devices.map((d) => d.start()));
    await Promise.all(devices.map((d) => d.waitForData()));
    return host.count(api);
  } finally {
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    host.dropOpen();
  }
}

export async function devicesAskingTogether(browser: Browser, host: CountingHost, sync: SyncServer): Promise<Row> {
  const runs: number[] = [];
  for (let i = 0; i < settings.deviceBoots; i++) runs.push(await askTogether(browser, host, sync));
  const params = { devices: 2, hostMs: settings.hostMs, setup: "both up and synced, then asking" };
  return countRow(
    "runs with 2+ requests, two devices asking at once",
    CONTENDERS.shared,
    params,
    runs.filter((n) => n > 1).length,
    runs.length,
    runs,
  );
}

const INTERVALS = 5;
export const INTERVAL_LIBS: Lib[] = ["tanstack", "broadcast", "shared"];

/** K tabs polling every intervalMs: host requests per interval over INTERVALS whole intervals. */
async function perInterval(browser: Browser, host: CountingHost, lib: Lib, tabs: number): Promise<number> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName(`bench-poll-${lib}`)}`;
    const url = benchUrl(host, lib, { api, name: uniqueName("app"), interval: settings.intervalMs });
    const pages = await openBenchTabs(context, url, tabs);
    await allShowData(pages);
    // Let the opening burst pass, then count whole intervals by the host's clock.
    await sleep(settings.intervalMs);
    const from = performance.now();
    await sleep(settings.intervalMs * INTERVALS);
    return host.calls(api).filter((c) => c.at > from && c.at <= from + settings.intervalMs * INTERVALS).length / INTERVALS;
  } finally {
    await context.close();
    host.dropOpen();
  }
}

export async function requestsPerInterval(browser: Browser, host: CountingHost, figures: Figures): Promise<void> {
  for (const tabs of [2, 8]) {
    for (const lib of INTERVAL_LIBS) {
      const params = { tabs, intervalMs: settings.intervalMs, intervals: INTERVALS, hostMs: 0 };
      figures.add("requests per refetch interval", CONTENDERS[lib], params, "requests", 0, await perInterval(browser, host, lib, tabs));
    }
  }
}
