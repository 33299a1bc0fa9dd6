/**
 * A tab back from the back/forward cache checks whether the worker it knew still lives by asking
 * for that worker's lock if available. Web Locks may refuse that request (a page being torn down,
 * a broken LockManager given as `locks`): the check then cannot tell, and the tab carries on as it
 * does when its worker never named its lock (Web Locks' query, else the next generation), with no
 * unhandled rejection. Before, the refusal escaped the resume: an unhandled rejection, no hello
 * said again, and the tab's later asks pending for good. Real ports, docs and stores; FakeLocks
 * behind a front that refuses once the page is back; the page's events from pageEvents().
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { browser, cleanup, pageEvents } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/resume-lock-check-refused";

// Read from the lock state, the live worker serves the tab again; with nothing to read, the tab
// turns to the next generation, as it does when its worker had named no lock before the hide.
const cases: [string, boolean, number[]][] = [
  ["its ifAvailable request refused, the lock state still read", false, [0]],
  ["its ifAvailable request and the lock state's query refused", true, [0, 1]],
];

it.each(cases)(
  "invariant 8, a tab back from the back/forward cache with %s: its asks are answered, no unhandled rejection",
  async (_, queryToo, generations) => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    cleanup(() => process.off("unhandledRejection", onUnhandled));
    const page = pageEvents();
    const host = new Host();
    let n = 0;
    host.auto = () => ({ status: 200, body: { n: ++n } });
    const b = browser(host);
    const real = b.locks.forTab("page");
    let refusing = false;
    const refused = () => new DOMException("The request was denied.", "SecurityError");
    const locks: LockManagerLike = {
      query: () => (refusing && queryToo ? Promise.reject(refused()) : real.query()),
      request: (name, options, callback) =>
        refusing && options.ifAvailable ? Promise.reject(refused()) : real.request(name, options, callback),
    };
    const cached = b.tab({ locks });
    await expect(cached.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: true }));
    refusing = true;
    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    await expect(cached.refetch({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(cached.mode).toBe("shared-worker");
    expect([...b.workers.keys()]).toEqual(generations.map((g) => `shared-fetch:${b.name}:${g}`));
    await new Promise((r) => setTimeout(r, 20));
    expect(unhandled).toEqual([]);
  },
);
