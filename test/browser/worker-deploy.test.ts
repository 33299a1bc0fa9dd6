/**
 * A deploy while tabs are open, in real chromium tabs of one context: the old build's tabs share
 * their worker; a tab of the next build (its worker script another bundle, at another URL) starts
 * a second worker of the same name, which waits for the lock the old one holds. That tab falls
 * back to a replica of its own at its probe, naming the other build's worker (before: after the
 * answer bound, "did not answer"), and shows the data the old worker recorded: one request.
 */
import { expect, it } from "vitest";
import { historyViolations, uniqueName, waitUntil } from "./harness.ts";
import { workerPageFixture } from "./worker-fixture.ts";
import { mode, modeReason, openWorkerTabs } from "./worker-harness.ts";

const fixture = workerPageFixture();

it("a tab of the next build beside the old build's tabs: a replica of its own at its probe, naming the other build's worker; one request, every tab shows it", async () => {
  const context = await fixture.newContext();
  const host = fixture.host();
  const api = `/api/${uniqueName("deploy")}`;
  const tabs = uniqueName("app");
  const old = await openWorkerTabs(context, host, { api, tabs }, 2, "old");
  await Promise.all(old.map((t) => t.waitForData()));
  const [next] = await openWorkerTabs(context, host, { api, tabs, worker: "next-build" }, 1, "next");
  await next!.waitForData();
  await waitUntil("the next build's tab falls back", async () => (await mode(next!)) === "tab");
  expect(await modeReason(next!)).toBe(
    "another SharedWorker of this name (another build's script, at another URL) serves this browser's tabs",
  );
  expect(host.count(api)).toBe(1);
  for (const tab of old) expect(await mode(tab)).toBe("shared-worker");
  for (const tab of [...old, next!]) {
    expect(await tab.errors(), `${tab.name} page errors`).toEqual([]);
    expect(historyViolations(await tab.history())).toEqual([]);
  }
});
