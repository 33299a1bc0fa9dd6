/**
 * A tab in the back/forward cache comes back after the worker it knew retired (no tab was left,
 * so it closed) and another tab started a fresh worker of the same name: that worker's lock is
 * held, so the tab took its old port for live and said hello on it. The retired worker never
 * answered (or refused), and the tab gave up on workers for good, a replica of its own. Now it
 * says hello on a new port, which reaches the live worker. Real ports, docs and stores; FakeLocks;
 * the page's events from pageEvents().
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { browser, pageEvents, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/back-forward-after-retire";

it("invariant 8: a tab back from the back/forward cache after its worker retired is served by the fresh worker another tab started", async () => {
  const page = pageEvents();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const b = browser(host, { retireAfterMs: 0 });
  const cached = b.tab();
  await expect(cached.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: true }));
  await until(() => b.retired.length === 1);
  const other = b.tab();
  await expect(other.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
  await expect(cached.refetch({ url: API })).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(cached.mode).toBe("shared-worker");
  expect(cached.modeReason).toBeUndefined();
});
