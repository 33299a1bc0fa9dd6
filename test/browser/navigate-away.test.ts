/**
 * Invariant 8 (pending is truthful, never "done, nothing here", never a false error) when the
 * claimant leaves mid-request: a navigation fails the page's requests as network errors during its
 * unload, before the store's pagehide listener has run. The survivor must take over (the claim
 * marked abandoned) and show the data, never the leaving tab's unload as the request's error — also
 * where the app wraps `fetch` (as error-reporting scripts do), which once left the error for good.
 */
import { describe, expect, it } from "vitest";
import { claimGaps, findClaimant, historyViolations, openTabs, uniqueName, type Tab } from "./harness.ts";
import { useE2E } from "./setup.ts";

const env = useE2E();

/** An app's own fetch wrapper (as error-reporting scripts install), adding its promise hops. */
function wrapFetch(): void {
  const original = window.fetch;
  window.fetch = (input, init) => original(input, init).then((response) => response);
}

async function leaveMidRequest(leave: (tab: Tab) => Promise<unknown>, wrapped: boolean, first: "hang" | "stall" = "hang"): Promise<void> {
  const { host } = env.e2e();
  const api = `/api/${uniqueName("leave")}`;
  host.plan(api, [first, { delayMs: 0 }]); // the first request is never answered (in full); the takeover's at once
  const context = await env.e2e().newContext();
  if (wrapped) await context.addInitScript(wrapFetch);
  const tabs = await openTabs(context, host, { api, tabs: uniqueName("tabs"), leaseMs: 60_000, retry: 0 }, 2);
  await host.waitForCall(api, 1);
  const claimant = await findClaimant(tabs);
  const survivor = tabs.find((t) => t !== claimant)!;
  await survivor.waitForStatus("pending");
  await leave(claimant);
  // A lease of a minute: only the abandoned claim (pagehide) can bring the data this soon.
  await survivor.waitForData();
  expect(JSON.parse((await survivor.state()).data)).toEqual({ path: api, n: 2 });
  expect(host.count(api)).toBe(2);
  const history = await survivor.history();
  expect(historyViolations(history), `survivor history ${JSON.stringify(history)}`).toEqual([]);
  expect(
    history.filter((e) => e.status === "error"),
    "the survivor never showed an error",
  ).toEqual([]);
  expect(claimGaps(await survivor.claimLog())).toEqual([]);
}

describe("the claimant leaves mid-request (retry: 0)", () => {
  it("it navigates away: the survivor takes over and shows the data, never the unload as a network error", async () => {
    await leaveMidRequest((tab) => tab.page.goto("about:blank"), false);
  });

  it("it reloads: the same", async () => {
    await leaveMidRequest((tab) => tab.page.reload({ waitUntil: "domcontentloaded" }), false);
  });

  it("it navigates away with the app's fetch wrapped: the same", async () => {
    await leaveMidRequest((tab) => tab.page.goto("about:blank"), true);
  });

  // The unload fails the body's read, not the fetch: the host answered, a status is known.
  it("it navigates away while the response's body is still arriving (headers sent, the body stalled): the same", async () => {
    await leaveMidRequest((tab) => tab.page.goto("about:blank"), false, "stall");
  });
});
