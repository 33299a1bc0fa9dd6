/**
 * Bad input gets a clear error (DESIGN.md): createBrowserReplica (what serveBrowserReplica builds
 * in the worker) refuses options of the wrong shape at once, naming the value. Before, `null` threw
 * "Cannot read properties of null (reading 'locks')", a string was taken for no options, and a
 * `fetch` that is no function failed only at the first request, far from the page that set it.
 * `retireAfterMs: Infinity` means never (setTimeout ran it at once, retiring the worker as soon as
 * its last tab left); a delay setTimeout cannot keep is refused.
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { browser } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/replica-options";

describe("createBrowserReplica's options", () => {
  it("refuses what is no options object, or an option of the wrong type, naming the value", () => {
    const refused: [unknown, RegExp][] = [
      [null, /createBrowserReplica: the options must be an object, got null/],
      ["worker", /the options must be an object, got "worker"/],
      [{ fetch: "fetch" }, /`fetch` must be a function when given, got "fetch"/],
      [{ connectPeers: {} }, /`connectPeers` must be a function when given, got an object/],
      [{ lockName: 7 }, /`lockName` must be a string when given, got 7/],
      [{ store: null }, /`store` must be an object when given, got null/],
      // Before, taken and failing at the worker's first lock, far from the page that built it.
      [{ locks: 5 }, /locks must be a LockManager \(navigator.locks\) or null when given, got a number/],
      [{ locks: {} }, /locks must be a LockManager .*got an object without request\(\)/],
      [{ retireAfterMs: -1 }, /`retireAfterMs` must be a number of ms from 0 to 2\^31 - 1, or Infinity, got -1/],
      [{ retireAfterMs: 2 ** 31 }, /`retireAfterMs` must be .*got 2147483648/],
      [{ retireAfterMs: "5000" }, /`retireAfterMs` must be .*got "5000"/],
    ];
    for (const [options, message] of refused) expect(() => createBrowserReplica(options as never)).toThrow(message);
  });

  it("retireAfterMs: Infinity keeps the worker serving once its last tab has left", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { n: 1 } });
    const b = browser(host, { retireAfterMs: Infinity });
    const tab = b.tab();
    await expect(tab.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    tab.destroy();
    // Wide enough for a timer that fires at once to have run on a busy machine.
    await new Promise((r) => setTimeout(r, 500));
    expect(b.retired).toEqual([]);
  });
});
