/**
 * Tabs of one browser (one context: shared BroadcastChannel, IndexedDB, Web Locks) showing the same
 * data share one request, and a crashed claimant is taken over without a "done, nothing here" state.
 */
import { describe, expect, it } from "vitest";
import { claimGaps, findClaimant, historyViolations, openTab, openTabs, uniqueName, waitUntil, type Tab } from "./harness.ts";
import { useE2E } from "./setup.ts";

const env = useE2E();

const LEASE_MS = 1500;
/**
 * The crash tests' lease: long enough that only the browser's release of the crashed tab's Web Lock
 * can bring the takeover inside CRASH_BOUND_MS (by lease silence it would come 20 s after the crash
 * at the earliest: the last heartbeat, lease/3 before, plus the lease).
 */
const CRASH_LEASE_MS = 30_000;
const CRASH_BOUND_MS = CRASH_LEASE_MS / 3;

async function expectCleanHistories(tabs: Tab[]): Promise<void> {
  for (const tab of tabs) {
    const history = await tab.history();
    expect(historyViolations(history), `${tab.name} history ${JSON.stringify(history)}`).toEqual([]);
    const log = await tab.claimLog();
    expect(claimGaps(log), `${tab.name} claims ${JSON.stringify(log)}`).toEqual([]);
    expect(await tab.errors(), `${tab.name} page errors`).toEqual([]);
    expect(tab.consoleProblems, `${tab.name} console`).toEqual([]);
  }
}

describe("tabs of one browser", () => {
  it("8 tabs opened at once: the host sees exactly one request and every tab shows the data", async () => {
    const { host } = env.e2e();
    const api = `/api/${uniqueName("eight")}`;
    const context = await env.e2e().newContext();
    const tabs = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: LEASE_MS }, 8);

    await Promise.all(tabs.map((t) => t.waitForData()));
    expect(host.count(api)).toBe(1);
    for (const tab of tabs) expect(JSON.parse((await tab.state()).data)).toEqual({ path: api, n: 1 });
    const dispatchedBy = (await Promise.all(tabs.map((t) => t.dispatched()))).filter(Boolean);
    expect(dispatchedBy).toHaveLength(1);
    await expectCleanHistories(tabs);
  });

  it("the claimant crashes mid-request: another tab takes over by its Web Lock, long before the lease; every survivor shows the data", async () => {
    const { host } = env.e2e();
    const api = `/api/${uniqueName("crash")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const context = await env.e2e().newContext();
    const tabs = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: CRASH_LEASE_MS }, 4);

    await host.waitForCall(api, 1);
    const claimant = await findClaimant(tabs);
    const survivors = tabs.filter((t) => t !== claimant);
    // Everyone sees the work in flight before the crash.
    await Promise.all(survivors.map((t) => t.waitForStatus("pending")));
    const crashedAt = await claimant.crash();

    const second = await host.waitForCall(api, 2, CRASH_BOUND_MS);
    expect(second.n).toBe(2);
    expect(second.at - crashedAt).toBeLessThan(CRASH_BOUND_MS);
    await Promise.all(survivors.map((t) => t.waitForData()));
    for (const tab of survivors) expect(JSON.parse((await tab.state()).data)).toEqual({ path: api, n: 2 });
    expect(host.count(api)).toBe(2);
    const takers = (await Promise.all(survivors.map((t) => t.events()))).filter((events) => events.some((e) => e.type === "dispatched"));
    expect(takers).toHaveLength(1);
    await expectCleanHistories(survivors);
  });

  it("crash, then a new tab opened at once as the only other page: it recovers with no other wake-up, by the Web Lock, long before the lease", async () => {
    const { host } = env.e2e();
    const api = `/api/${uniqueName("reopen")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const config = { api, tabs: uniqueName("tabs"), leaseMs: CRASH_LEASE_MS };
    const context = await env.e2e().newContext();
    const victim = await openTab(context, host, config, "victim");
    await victim.ready();
    await host.waitForCall(api, 1);
    await waitUntil("the victim dispatched", () => victim.dispatched());
    const crashedAt = await victim.crash();

    const fresh = await openTab(context, host, config, "fresh");
    await fresh.ready();
    expect(context.pages().filter((p) => p !== victim.page)).toEqual([fresh.page]);
    // The crashed tab's claim came from IndexedDB: the new tab finds its browser's lock free and takes it over.
    const second = await host.waitForCall(api, 2, CRASH_BOUND_MS);
    expect(second.at - crashedAt).toBeLessThan(CRASH_BOUND_MS);
    await fresh.waitForData();
    expect(JSON.parse((await fresh.state()).data)).toEqual({ path: api, n: 2 });
    expect(host.count(api)).toBe(2);
    const history = await fresh.history();
    expect(history[0]?.status, JSON.stringify(history)).toBe("pending");
    await expectCleanHistories([fresh]);
  });
});
