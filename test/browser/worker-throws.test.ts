/**
 * A broken deploy, in real chromium tabs of one context: the worker script throws as it starts.
 * Chromium fires its `error` at the tab connected as it throws, which falls back to a replica of its
 * own; a tab opened later connects to that same worker, alive but broken, and hears nothing, nor
 * does its probe. It waited out the answer bound (5 s with no data) and said only "did not answer";
 * it now falls back at its probe, told by the first tab's mark. One request serves both tabs.
 */
import { expect, it } from "vitest";
import { uniqueName, waitUntil } from "./harness.ts";
import { workerPageFixture } from "./worker-fixture.ts";
import { mode, modeReason, openWorkerTabs } from "./worker-harness.ts";

const fixture = workerPageFixture();

it("a worker script that throws as it starts: the tab connected then hears it; a tab opened later falls back at its probe, told by that tab; one request", async () => {
  const context = await fixture.newContext();
  const host = fixture.host();
  const api = `/api/${uniqueName("throws")}`;
  const tabs = uniqueName("app");
  const [first] = await openWorkerTabs(context, host, { api, tabs, worker: "throws" }, 1, "first");
  await first!.waitForData();
  await waitUntil("the first tab falls back", async () => (await mode(first!)) === "tab");
  expect(await modeReason(first!)).toMatch(/^the SharedWorker failed to load: .*threw as it started/);
  const [later] = await openWorkerTabs(context, host, { api, tabs, worker: "throws" }, 1, "later");
  await later!.waitForData();
  await waitUntil("the later tab falls back", async () => (await mode(later!)) === "tab");
  expect(await modeReason(later!)).toBe("the SharedWorker failed to load (told to another tab)");
  expect(host.count(api)).toBe(1);
});
