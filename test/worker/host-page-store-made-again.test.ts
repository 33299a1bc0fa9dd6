/**
 * The live worker lives in the renderer of the page that started it, and the next generation's
 * standby must live in another (it is there to outlive that renderer). A page that made its store
 * again (a logout then a new connectBrowser; React StrictMode's effect run twice, which destroys
 * the first store before its hello) connected a second port to the worker it started: that port
 * was not the first, the worker said "not the host", and the page started the standby in its own
 * renderer, where it would die with the live worker, leaving no standby. Real ports, docs and
 * stores; FakeLocks (a page's stores share its Web Locks); a stubbed localStorage.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { fakeStorage } from "../sync/boot-fakes.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/host-store-again";

afterEach(() => void vi.unstubAllGlobals());

function scene() {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const b = browser(host);
  const page = b.locks.forTab("host-page");
  const standby = () => b.workers.has(`shared-fetch:${b.name}:1`);
  return { b, page, standby };
}

it("a logout then a new store in the host page starts no standby there; another page's store does", async () => {
  const { b, page, standby } = scene();
  const first = b.tab({ locks: page });
  await expect(first.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  first.destroy();
  const again = b.tab({ locks: page });
  await expect(again.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  expect(again.mode).toBe("shared-worker");
  await new Promise((r) => setTimeout(r, 50));
  expect(standby()).toBe(false);
  // Another page is not the host: it starts the standby (in its own renderer).
  const other = b.tab();
  await expect(other.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  await until(standby);
});

it("React StrictMode's double effect on a return visit (the first store destroyed before its hello) starts no standby in the host page", async () => {
  const { b, page, standby } = scene();
  const storage = fakeStorage();
  vi.stubGlobal("localStorage", storage);
  // A return visit: the tab starts the worker its storage names at once, before its hello.
  storage.items.set(`shared-fetch:worker-generation:${b.name}`, "0");
  b.tab({ locks: page }).destroy();
  const again = b.tab({ locks: page });
  await expect(again.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  expect(again.mode).toBe("shared-worker");
  await new Promise((r) => setTimeout(r, 50));
  expect(standby()).toBe(false);
});

it("a page whose worker retired is no longer its host: its next store, on the fresh worker another page started, starts the standby", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const b = browser(host, { retireAfterMs: 0 });
  const page = b.locks.forTab("host-page");
  const first = b.tab({ locks: page });
  await expect(first.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  first.destroy();
  await until(() => b.retired.length === 1);
  // Another page comes first: the fresh worker of that name lives in its renderer.
  const other = b.tab();
  await expect(other.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  const again = b.tab({ locks: page });
  await expect(again.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  await until(() => b.workers.has(`shared-fetch:${b.name}:1`));
});
