/**
 * Issue 10: the tab's own replica is a chunk loaded on demand (connectBrowser). Where that chunk
 * never loads (the network failed it), the tab has no replica to fetch with: what it asked stays
 * pending — never idle, never a made-up result — and the failure is on the console, naming why the
 * tab needed its own replica. The chunk's failure is simulated by a module mock that throws.
 */
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";

afterEach(() => {
  vi.doUnmock("../../src/worker/tab-replica.ts");
  vi.restoreAllMocks();
});

it("a fallback chunk that fails to load: asks stay pending, nothing is fetched, the console says why", async () => {
  vi.doMock("../../src/worker/tab-replica.ts", () => {
    throw new TypeError("Failed to fetch dynamically imported module: /assets/tab-replica.js");
  });
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const host = new Host();
  host.auto = () => ({ status: 200, body: { never: true } });
  const store = connectBrowser({ name: `chunk-${process.pid}`, fetch: host.fetch, locks: new FakeLocks().forTab("t") });
  const api = "http://127.0.0.1:9/api/chunk";
  let settled = false;
  store.ensure({ url: api }).then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 40 && errors.mock.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  expect(errors.mock.calls[0]?.[0]).toMatch(/this tab's replica failed to load \(no worker factory given\); its requests stay pending/);
  expect(store.mode).toBe("tab");
  expect(store.snapshot({ url: api }).status).toBe("pending");
  expect(settled).toBe(false);
  expect(host.calls).toHaveLength(0);
  store.destroy();
});
