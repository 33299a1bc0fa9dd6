/**
 * A host that never answers: the lease passes many times over, yet nobody duplicates the request
 * (heartbeats keep the claim alive) and every tab stays pending; never "done, nothing here".
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { findClaimant, historyViolations, openTabs, uniqueName } from "./harness.ts";
import { startE2E } from "./setup.ts";

let e2e: Awaited<ReturnType<typeof startE2E>>;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

const LEASE_MS = 500;
const WATCH_MS = 5000; // ten leases: the one place in these tests where real waiting is the point

it("a hung host keeps every tab pending through many leases, with one request", async () => {
  const { host } = e2e;
  const api = `/api/${uniqueName("hung")}`;
  host.plan(api, ["hang"]);
  const context = await e2e.newContext();
  const tabs = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: LEASE_MS }, 3);
  await host.waitForCall(api, 1);
  await findClaimant(tabs);
  await Promise.all(tabs.map((t) => t.waitForStatus("pending")));

  const start = performance.now();
  let polls = 0;
  // Ten leases, and more than ten looks at every tab: on a loaded machine a round of reads takes
  // longer, so the watch goes on until it has looked that often, rather than counting looks after it.
  while (performance.now() - start < WATCH_MS || polls <= 10) {
    const states = await Promise.all(tabs.map((t) => t.state()));
    for (const [i, s] of states.entries())
      expect(s.status, `${tabs[i]!.name} at ${Math.round(performance.now() - start)} ms`).toBe("pending");
    expect(host.count(api)).toBe(1);
    polls += 1;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const tab of tabs) {
    const history = await tab.history();
    expect(historyViolations(history), JSON.stringify(history)).toEqual([]);
    expect(tab.consoleProblems, `${tab.name} console`).toEqual([]);
    // Pending the whole time: nothing but pending after the first pending render.
    expect(history.slice(history.findIndex((h) => h.status === "pending")).every((h) => h.status === "pending")).toBe(true);
  }
  const claims = await Promise.all(tabs.map(async (t) => (await t.events()).filter((e) => e.type === "claimed").length));
  expect(claims.reduce((a, b) => a + b, 0)).toBe(1);
});
