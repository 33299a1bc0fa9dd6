/**
 * The worker hears a tab's death by the tab's Web Lock, which it watches from the tab's hello: a
 * MessagePort has no close event, and a crashed tab says no goodbye. Where Web Locks refuse that
 * watch (a broken LockManager given to the worker as `locks`), a tab's crash would go unheard: the
 * worker kept its asks, so a request only that tab wanted was never aborted (invariant 11), and the
 * worker, a tab still counted as present, never retired. The worker now refuses such a tab, which
 * becomes a replica of its own (README, "Fallback"): one console error in the tab, nothing of it
 * kept in the worker, no rejection left unhandled. Real ports and stores; FakeLocks behind a
 * refusing front for the worker.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/tab-watch-refused";

it("invariant 11: a worker that may not watch a tab's lock refuses the tab, keeps nothing of it, and retires; the tab answers its ask", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  cleanup(() => process.off("unhandledRejection", onUnhandled));
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  cleanup(() => errors.mockRestore());
  const host = new Host();
  const b = browser(host, {
    retireAfterMs: 10,
    workerLocks: (_, real) => ({
      query: () => real.query!(),
      request: (name, options, callback) =>
        name.startsWith("shared-fetch:tab:") && options.mode === "shared"
          ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
          : real.request(name, options, callback),
    }),
  });
  const tab = b.tab({ fetch: host.fetch, standby: false });
  const asked = tab.ensure({ url: API });
  asked.catch(() => {});
  await until(() => tab.mode === "tab");
  expect(tab.modeReason).toMatch(/^the SharedWorker refused this tab: Web Locks refused to watch this tab's lock \(SecurityError/);
  // The worker keeps no ask of the tab, and with no tab left it retires.
  await until(() => b.retired.length === 1);
  const [call] = await host.whenCalls(1);
  call!.respond(200, { own: 1 });
  await expect(asked).resolves.toMatchObject({ status: "success", data: { own: 1 } });
  expect(host.calls.filter((c) => !c.aborted)).toHaveLength(1);
  expect(errors).toHaveBeenCalledTimes(1);
  expect(unhandled).toEqual([]);
});
