/**
 * Invariant 3a with real `navigator.locks`: a tab frozen and resumed in one task lets its replica
 * lock go and asks for it again, and still names its browser in the claims it makes afterwards, so
 * that its crash is found by its released lock, not after its lease (a minute here). The ordering
 * the spec allows (the new request granted before the old one's promise settles) is pinned in Node
 * by test/replica-lock-hide-show.test.ts; chromium settles the old promise first.
 */
import { describe, expect, it } from "vitest";
import { openTab, uniqueName, waitUntil } from "./harness.ts";
import { useE2E } from "./setup.ts";
import type { PageWindow } from "./page/types.ts";

const env = useE2E();

describe("a tab frozen and resumed in one task", () => {
  it("holds its lock again and its claim's crash is found by the lock: another tab takes over well before the lease", async () => {
    const { host } = env.e2e();
    const api = `/api/${uniqueName("hide-show")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const config = { api, tabs: uniqueName("tabs"), leaseMs: 60_000, manualStart: true };
    const context = await env.e2e().newContext();
    const victim = await openTab(context, host, config, "victim");
    const survivor = await openTab(context, host, config, "survivor");
    await Promise.all([victim.ready(), survivor.ready()]);
    await victim.page.evaluate(() => {
      document.dispatchEvent(new Event("freeze"));
      document.dispatchEvent(new Event("resume"));
    });
    await waitUntil("the victim holds its replica lock again", () =>
      victim.page.evaluate(async () => {
        const { held = [] } = await navigator.locks.query();
        return held.some((lock) => lock.name === `shared-fetch:replica:${(window as unknown as PageWindow).__replicaId}`);
      }),
    );
    await victim.start();
    await host.waitForCall(api, 1);
    await waitUntil("the victim dispatched", () => victim.dispatched());
    await survivor.start();
    await survivor.waitForStatus("pending");
    await victim.crash();
    // Only the released lock can tell this soon: the lease is a minute, the tabs' presence 30 s.
    await host.waitForCall(api, 2, 10_000);
    await survivor.waitForData();
    expect(JSON.parse((await survivor.state()).data)).toEqual({ path: api, n: 2 });
    expect(host.count(api)).toBe(2);
  });
});
