/**
 * Duplicates at boot. Inside one browser: K tabs opened at once on a fresh profile, the host
 * answering at once, so nothing but the arbitration stands between two requests. Across two
 * devices: two browser contexts booting the shared-fetch page at once through the y-websocket
 * server, set up as the README shows (the store created at once, nothing awaited).
 */
import type { Browser } from "playwright-core";
import { uniqueName } from "../../test/browser/harness.ts";
import type { CountingHost } from "../../test/browser/host.ts";
import type { SyncServer } from "../../test/sync/ws-server.ts";
import { allShowData, benchUrl, CONTENDERS, openBenchTabs, settings, sleep, type Lib } from "./setup.ts";
import { timeline } from "./timeline.ts";
import { countRow, type Row } from "./stats.ts";
import { judgeBoot, judgeDevices } from "./targets.ts";

/** TanStack Query alone and its broadcast plugin are left out: every tab sends its own request (an n/a line says so). */
export const BOOT_LIBS: Lib[] = ["leader", "shared"];

async function bootInBrowser(browser: Browser, host: CountingHost, lib: Lib): Promise<number> {
  const context = await browser.newContext();
  try {
    const api = `/api/${uniqueName(`boot-${lib}`)}`;
    host.plan(api, [{ delayMs: 0 }]);
    const tabs = await openBenchTabs(context, benchUrl(host, lib, { api, name: uniqueName("app") }), settings.bootTabs);
    await allShowData(tabs);
    await sleep(100);
    const requests = host.count(api);
    if (requests > 1) console.log(`note: ${CONTENDERS[lib]} sent ${requests} requests at boot: ${await timeline(tabs)}`);
    return requests;
  } finally {
    await context.close();
    host.dropOpen();
  }
}

export async function bootDuplicates(browser: Browser, host: CountingHost): Promise<Row[]> {
  const perRun = new Map<Lib, number[]>(BOOT_LIBS.map((lib) => [lib, []]));
  for (let i = 0; i < settings.bootRuns; i++) {
    for (const lib of i % 2 ? [...BOOT_LIBS].reverse() : BOOT_LIBS) perRun.get(lib)!.push(await bootInBrowser(browser, host, lib));
  }
  const params = { tabs: settings.bootTabs, hostMs: 0, profile: "fresh" };
  return BOOT_LIBS.map((lib) => {
    const runs = perRun.get(lib)!;
    if (lib === "leader" && runs.some((n) => n !== 1))
      throw new Error(`weblock-leader sent ${runs.join(" ")} requests at boot (expected 1 each)`);
    const row = countRow(
      "runs with 2+ requests at boot in one browser",
      CONTENDERS[lib],
      params,
      runs.filter((n) => n > 1).length,
      runs.length,
      runs,
    );
    return lib === "shared" ? judgeBoot(row) : row;
  });
}

async function bootTwoDevices(browser: Browser, host: CountingHost, sync: SyncServer): Promise<number> {
  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const api = `/api/${uniqueName("devices")}`;
    host.plan(api, [{ delayMs: settings.hostMs }]);
    const url = benchUrl(host, "shared", { api, name: uniqueName("app"), ws: sync.url, room: uniqueName("room") });
    const tabs = (await Promise.all(contexts.map((c, i) => openBenchTabs(c, url, 1, 0, `device${i}`)))).flat();
    await allShowData(tabs);
    await sleep(100);
    const requests = host.count(api);
    if (requests > 1) console.log(`note: two devices sent ${requests} requests at boot: ${await timeline(tabs)}`);
    return requests;
  } finally {
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    host.dropOpen();
  }
}

export async function deviceDuplicates(browser: Browser, host: CountingHost, sync: SyncServer): Promise<Row> {
  const runs: number[] = [];
  for (let i = 0; i < settings.deviceBoots; i++) runs.push(await bootTwoDevices(browser, host, sync));
  const params = { devices: 2, hostMs: settings.hostMs, setup: "README (store at once)" };
  // shared-fetch only: TanStack Query (alone or with its broadcast plugin) and the lock leader
  // send one request per device, since neither BroadcastChannel nor Web Locks span devices.
  return judgeDevices(
    countRow("boots with 2+ requests across two devices", CONTENDERS.shared, params, runs.filter((n) => n > 1).length, runs.length, runs),
  );
}
