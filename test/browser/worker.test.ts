/**
 * One replica per browser (connectBrowser + a SharedWorker), in real chromium tabs of one context,
 * against the counting host and a real y-websocket server on 127.0.0.1. The worker lives in the
 * renderer of the tab that started it (the "worker's host tab", opened first here): crashing any
 * other tab costs nothing; crashing that one costs a takeover by the next worker.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSyncServer, type SyncServer } from "../sync/ws-server.ts";
import { historyViolations, uniqueName, waitUntil, type Tab } from "./harness.ts";
import type { CountingHost } from "./host.ts";
import { workerPageFixture } from "./worker-fixture.ts";
import { idbOpens, mode, modeReason, openWorkerTabs, socketStats, type WorkerPageConfig } from "./worker-harness.ts";
import { STANDBY_LOCK_PREFIX } from "../../src/worker/protocol.ts";

// The page, the counting host and chromium, per file; the sync server is this file's own.
const fixture = workerPageFixture();
const newContext = fixture.newContext;
let host: CountingHost;
let sync: SyncServer;
beforeAll(async () => {
  host = fixture.host();
  sync = await startSyncServer();
});
afterAll(async () => {
  await sync?.close();
});

/** The worker's host tab first (it starts the SharedWorker, which then lives in its renderer), then the others. */
async function hostThenOthers(config: WorkerPageConfig, others: number): Promise<{ first: Tab; rest: Tab[] }> {
  const context = await newContext();
  const [first] = await openWorkerTabs(context, host, config, 1, "host");
  await waitUntil("the worker answered the host tab", () =>
    first!.page.evaluate(() => document.querySelector('[data-testid="status"]')?.textContent !== "idle"),
  );
  const rest = await openWorkerTabs(context, host, config, others, "tab");
  return { first: first!, rest };
}

/**
 * Resolves once a standby worker of generation `n` holds its lock (STANDBY_LOCK_PREFIX), as `tab`
 * sees the browser's locks, and one other than `not` (a Web Locks client id): returns its client id.
 */
async function standing(tab: Tab, app: string, n: number, not?: string): Promise<string> {
  const name = `${STANDBY_LOCK_PREFIX}shared-fetch:${app}:${n}`;
  return waitUntil(`a standby ${name} holds its lock`, async () => {
    const held = await tab.page.evaluate(
      async (lock) => ((await navigator.locks.query()).held ?? []).find((l) => l.name === lock)?.clientId,
      name,
    );
    return held !== undefined && held !== not ? held : undefined;
  });
}

async function expectClean(tabs: Tab[]): Promise<void> {
  for (const tab of tabs) {
    const history = await tab.history();
    expect(historyViolations(history), `${tab.name} history ${JSON.stringify(history)}`).toEqual([]);
    expect(await tab.errors(), `${tab.name} page errors`).toEqual([]);
    expect(tab.consoleProblems, `${tab.name} console`).toEqual([]);
  }
}

const dataOf = async (tab: Tab): Promise<unknown> => JSON.parse((await tab.state()).data);

/** Invariant 8 in the tab's store: once pending, never idle (never "nobody works on it, nothing recorded"). */
async function storeNeverIdle(tabs: Tab[]): Promise<void> {
  for (const tab of tabs) {
    const statuses = await tab.page.evaluate(() => (window as unknown as { __storeStatuses: string[] }).__storeStatuses);
    expect(statuses.slice(statuses.indexOf("pending")), `${tab.name} store statuses`).not.toContain("idle");
  }
}

describe("connectBrowser with a SharedWorker", () => {
  it("8 tabs: 1 host request, 1 WebSocket at the sync server, 1 IndexedDB connection (the worker's)", async () => {
    const api = `/api/${uniqueName("w8")}`;
    const config = { api, tabs: uniqueName("app"), ws: sync.url, room: uniqueName("room") };
    const before = await socketStats(sync.url);
    const { first, rest } = await hostThenOthers(config, 7);
    const tabs = [first, ...rest];
    await Promise.all(tabs.map((t) => t.waitForData()));
    expect(host.count(api)).toBe(1);
    for (const tab of tabs) expect(await dataOf(tab)).toEqual({ path: api, n: 1 });
    for (const tab of tabs) expect(await mode(tab)).toBe("shared-worker");
    const after = await socketStats(sync.url);
    expect(after.open - before.open).toBe(1);
    expect(after.total - before.total).toBe(1);
    const opens = await Promise.all(tabs.map(idbOpens));
    expect(opens.map((o) => o.tab)).toEqual(Array(8).fill(0));
    expect(Object.values(opens[0]!.workers)).toEqual([1]);
    await expectClean(tabs);
  });

  it("a tab that asked, other than the worker's host, crashes while the host hangs 3 s: 1 request in all, every survivor shows it", async () => {
    const api = `/api/${uniqueName("wcrash")}`;
    host.plan(api, ["hold"]);
    const { first, rest } = await hostThenOthers({ api, tabs: uniqueName("app") }, 3);
    const call = await host.waitForCall(api, 1);
    await Promise.all(rest.map((t) => t.waitForStatus("pending")));
    const victim = rest[1]!;
    await victim.crash();
    // The host answers 3 s after the request arrived (held by hand: booting tabs on a loaded machine may take longer than that).
    await new Promise((r) => setTimeout(r, Math.max(0, call.at + 3000 - performance.now())));
    call.respond();
    const survivors = [first, ...rest.filter((t) => t !== victim)];
    await Promise.all(survivors.map((t) => t.waitForData(20_000)));
    expect(call.answeredAt).toBeDefined();
    expect(call.closedAt).toBeUndefined();
    expect(host.count(api)).toBe(1);
    for (const tab of survivors) expect(await dataOf(tab)).toEqual({ path: api, n: 1 });
    await expectClean(survivors);
  });

  it("the worker's host tab crashes mid-request: the next worker takes the claim over and every survivor gets the data", async () => {
    const api = `/api/${uniqueName("whost")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const { first, rest } = await hostThenOthers({ api, tabs: uniqueName("app") }, 3);
    const call = await host.waitForCall(api, 1);
    await Promise.all(rest.map((t) => t.waitForStatus("pending")));
    await first.crash();
    // The worker died with its renderer: its fetch's socket closed, and the next worker asks again.
    const second = await host.waitForCall(api, 2, 20_000);
    expect(second.n).toBe(2);
    await Promise.all(rest.map((t) => t.waitForData(20_000)));
    for (const tab of rest) expect(await dataOf(tab)).toEqual({ path: api, n: 2 });
    expect(call.closedAt).toBeDefined();
    expect(host.count(api)).toBe(2);
    await expectClean(rest);
    await storeNeverIdle(rest);
  });

  it("the tab that started the standby crashes, then the worker's host tab mid-request: the next standby stands in time, every survivor stays served by a worker", async () => {
    const api = `/api/${uniqueName("wstandby")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const app = uniqueName("app");
    const config = { api, tabs: app };
    const context = await newContext();
    const [first] = await openWorkerTabs(context, host, config, 1, "host");
    await first!.waitForStatus("pending");
    // The next generation's worker lives in the renderer of the tab that started it: this one.
    const [starter] = await openWorkerTabs(context, host, config, 1, "starter");
    const dead = await standing(first!, app, 1);
    const [survivor] = await openWorkerTabs(context, host, config, 1, "survivor");
    const call = await host.waitForCall(api, 1);
    await survivor!.waitForStatus("pending");
    await starter!.crash();
    // The survivor heard the standby's lock go and started the next standby itself.
    await standing(first!, app, 1, dead);
    await first!.crash();
    const second = await host.waitForCall(api, 2, 20_000);
    expect(second.n).toBe(2);
    await survivor!.waitForData(20_000);
    expect(await dataOf(survivor!)).toEqual({ path: api, n: 2 });
    expect(await mode(survivor!), await modeReason(survivor!)).toBe("shared-worker");
    expect(call.closedAt).toBeDefined();
    expect(host.count(api)).toBe(2);
    await expectClean([survivor!]);
  });

  it("a logout in a single-page app: every tab's store destroyed, the workers retire (their socket to the sync server closes, their locks go); a later store starts a fresh one", async () => {
    const api = `/api/${uniqueName("wretire")}`;
    const app = uniqueName("app");
    const config = { api, tabs: app, ws: sync.url, room: uniqueName("room") };
    const before = await socketStats(sync.url);
    const { first, rest } = await hostThenOthers(config, 1);
    const tabs = [first, ...rest];
    await Promise.all(tabs.map((t) => t.waitForData()));
    await standing(first, app, 1);
    expect((await socketStats(sync.url)).open - before.open).toBe(1);
    for (const tab of tabs) await tab.page.evaluate(() => (window as unknown as { __store: { destroy(): void } }).__store.destroy());
    // RETIRE_AFTER_MS (5 s) after the last tab left.
    await waitUntil("the worker's socket closed", async () => (await socketStats(sync.url)).open === before.open, 20_000, 100);
    const workerLocks = () =>
      first.page.evaluate(async () =>
        ((await navigator.locks.query()).held ?? [])
          .map((l) => l.name ?? "")
          .filter((n) => n.startsWith("shared-fetch:worker:") || n.startsWith("shared-fetch:standby:")),
      );
    await waitUntil("the workers' locks let go", async () => (await workerLocks()).length === 0, 20_000, 100);
    // The next user's page load: a fresh worker serves it.
    await first.page.reload({ waitUntil: "domcontentloaded" });
    await first.ready();
    await first.waitForData();
    expect(await mode(first)).toBe("shared-worker");
    expect((await socketStats(sync.url)).open - before.open).toBe(1);
  });

  it("invariant 11: the worker's host tab closes, the request runs on for the other; the last tab closes and the host sees the socket close", async () => {
    const api = `/api/${uniqueName("wlast")}`;
    host.plan(api, ["hang"]);
    const { first, rest } = await hostThenOthers({ api, tabs: uniqueName("app") }, 1);
    const call = await host.waitForCall(api, 1);
    const last = rest[0]!;
    await last.waitForStatus("pending");
    await first.page.close();
    // Closing (not crashing) the host tab leaves the worker serving the other tab: nothing is re-sent.
    await last.waitForStatus("pending");
    expect(call.closedAt).toBeUndefined();
    await last.page.close();
    await waitUntil("the host saw the request's socket close", () => call.closedAt !== undefined, 10_000);
    expect(host.count(api)).toBe(1);
  });

  it("invariant 11: the only tab that waits for a request crashes: the worker aborts it (the host sees the socket close) and serves the others on", async () => {
    const api = `/api/${uniqueName("wonly")}`;
    const alone = `/api/${uniqueName("walone")}`;
    host.plan(alone, ["hang"]);
    const { first, rest } = await hostThenOthers({ api, tabs: uniqueName("app") }, 1);
    const asker = rest[0]!;
    await Promise.all([first, asker].map((t) => t.waitForData()));
    await asker.page.evaluate((url) => {
      const store = (window as unknown as { __store: { ensure(r: { url: string }): Promise<unknown> } }).__store;
      void store.ensure({ url: new URL(url, location.href).href }).catch(() => {});
    }, alone);
    const call = await host.waitForCall(alone, 1);
    await asker.crash();
    await waitUntil("the host saw the request's socket close", () => call.closedAt !== undefined, 10_000);
    expect(host.count(alone)).toBe(1);
    // The worker lives on for the host tab: a refetch there is served by it.
    await first.page.evaluate((url) => {
      const store = (window as unknown as { __store: { refetch(r: { url: string }): Promise<unknown> } }).__store;
      void store.refetch({ url: new URL(url, location.href).href });
    }, api);
    await host.waitForCall(api, 2);
    expect(await mode(first)).toBe("shared-worker");
    await expectClean([first]);
  });
});

// tabs.test.ts's "crash, then a new tab opened at once as the only other page", in both modes: the
// crashed replica's claim comes from IndexedDB alone, and its released lock is the only wake-up.
describe.each([
  ["worker", {}],
  ["fallback (SharedWorker absent)", { worker: "absent", leaseMs: 1500 }],
] as [string, Pick<WorkerPageConfig, "worker" | "leaseMs">][])(
  "%s: the only tab crashes mid-request, then a new tab opens as the only page",
  (_mode, extra) => {
    it("the new tab's replica takes the claim over and shows the data, pending until then", async () => {
      const api = `/api/${uniqueName("wreopen")}`;
      host.plan(api, ["hang", { delayMs: 0 }]);
      const config = { api, tabs: uniqueName("app"), ...extra };
      const context = await newContext();
      const [victim] = await openWorkerTabs(context, host, config, 1, "victim");
      const first = await host.waitForCall(api, 1);
      await victim!.waitForStatus("pending");
      await victim!.crash();
      const [fresh] = await openWorkerTabs(context, host, config, 1, "fresh");
      expect(context.pages().filter((p) => p !== victim!.page)).toEqual([fresh!.page]);
      await host.waitForCall(api, 2, 20_000);
      await fresh!.waitForData(20_000);
      expect(await dataOf(fresh!)).toEqual({ path: api, n: 2 });
      expect(first.closedAt).toBeDefined();
      expect(host.count(api)).toBe(2);
      expect(await mode(fresh!)).toBe(extra.worker ? "tab" : "shared-worker");
      const history = await fresh!.history();
      expect(history[0]?.status, JSON.stringify(history)).toBe("pending");
      await expectClean([fresh!]);
      await storeNeverIdle([fresh!]);
    });
  },
);

describe("forced fallback: SharedWorker absent, each tab a replica as before", () => {
  it("8 tabs opened at once: mode 'tab' in each, one host request, every tab shows the data", async () => {
    const api = `/api/${uniqueName("f8")}`;
    const context = await newContext();
    const tabs = await openWorkerTabs(context, host, { api, tabs: uniqueName("app"), worker: "absent", leaseMs: 1500 }, 8);
    await Promise.all(tabs.map((t) => t.waitForData()));
    expect(host.count(api)).toBe(1);
    for (const tab of tabs) expect(await mode(tab)).toBe("tab");
    for (const tab of tabs) expect(await dataOf(tab)).toEqual({ path: api, n: 1 });
    const dispatched = (await Promise.all(tabs.map((t) => t.dispatched()))).filter(Boolean);
    expect(dispatched).toHaveLength(1);
    await expectClean(tabs);
  });

  it("a worker script that 404s: each tab falls back on its own (mode 'tab', the reason named), one host request, every tab shows the data", async () => {
    const api = `/api/${uniqueName("f404")}`;
    const context = await newContext();
    const tabs = await openWorkerTabs(context, host, { api, tabs: uniqueName("app"), worker: "missing", leaseMs: 1500 }, 3);
    await Promise.all(tabs.map((t) => t.waitForData()));
    expect(host.count(api)).toBe(1);
    // The browser fires `error` at the SharedWorker objects connected to the failing script; a tab
    // that connected as that worker was torn down may hear nothing (per the HTML spec; chromium here,
    // at times for every tab). Such a tab starts the worker once more after WORKER_PROBE_MS and
    // hears the fresh one's `error`; only should that race again does its bound name the silence.
    const reasons: string[] = [];
    for (const tab of tabs) {
      expect(await mode(tab)).toBe("tab");
      reasons.push((await modeReason(tab)) ?? "");
      expect(await dataOf(tab)).toEqual({ path: api, n: 1 });
    }
    for (const reason of reasons) expect(reason).toMatch(/^the SharedWorker (failed to load|did not answer within \d+ ms)/);
    expect(reasons.some((r) => /^the SharedWorker failed to load/.test(r))).toBe(true);
    // The tab says why on its console once; nothing else goes wrong.
    for (const tab of tabs) {
      expect(await tab.errors(), `${tab.name} page errors`).toEqual([]);
      expect(historyViolations(await tab.history())).toEqual([]);
    }
  });

  it("the claimant crashes mid-request: another tab takes over, every survivor shows the data", async () => {
    const api = `/api/${uniqueName("fcrash")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const context = await newContext();
    const tabs = await openWorkerTabs(context, host, { api, tabs: uniqueName("app"), worker: "absent", leaseMs: 1500 }, 4);
    await host.waitForCall(api, 1);
    const claimant = await waitUntil("the tab that dispatched", async () => {
      const flags = await Promise.all(tabs.map((t) => t.dispatched()));
      return tabs[flags.indexOf(true)];
    });
    const survivors = tabs.filter((t) => t !== claimant);
    await Promise.all(survivors.map((t) => t.waitForStatus("pending")));
    await claimant.crash();
    await host.waitForCall(api, 2, 20_000);
    await Promise.all(survivors.map((t) => t.waitForData()));
    for (const tab of survivors) expect(await dataOf(tab)).toEqual({ path: api, n: 2 });
    expect(host.count(api)).toBe(2);
    await expectClean(survivors);
  });
});
