/**
 * A tab whose Web Locks refuse its lifetime lock (navigator.locks.request rejects: a SecurityError
 * in an opaque origin, where every request is refused, or an AbortError for that one lock) cannot
 * be served by the worker, which takes a tab's free lock for its death. The tab still works: it
 * becomes a replica of its own without Web Locks, as where there are none (README, "Fallback"),
 * `modeReason` names the refusal, the console says so once, and no rejection is left unhandled.
 * Before, the hello awaited the refused lock: an unhandled rejection, no hello, and the tab's asks
 * pending for good. Real ports and stores; FakeLocks behind a refusing front.
 */
import { afterEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/tab-lock-refused";
afterEach(() => void vi.restoreAllMocks());

type Refuse = (name: string) => DOMException | undefined;
const cases: [string, Refuse][] = [
  ["every request refused (an opaque origin's SecurityError)", () => new DOMException("opaque origin", "SecurityError")],
  [
    "the tab's lifetime lock refused (an AbortError)",
    (name) => (name.startsWith("shared-fetch:tab:") ? new DOMException("aborted", "AbortError") : undefined),
  ],
];

it.each(cases)(
  "%s: the tab becomes a replica of its own and answers its asks; one console error, no unhandled rejection",
  async (_, refuse) => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    cleanup(() => process.off("unhandledRejection", onUnhandled));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 1 } });
    const b = browser(host);
    const real = b.locks.forTab("page");
    const locks: LockManagerLike = {
      query: async () => {
        const refused = refuse("query");
        if (refused) throw refused;
        return real.query();
      },
      request: (name, options, callback) => {
        const refused = refuse(name);
        return refused ? Promise.reject(refused) : real.request(name, options, callback);
      },
    };
    const store = b.tab({ locks, fetch: host.fetch });
    const asked = store.ensure({ url: API });
    await until(() => store.mode === "tab");
    expect(store.modeReason).toMatch(/^Web Locks refused this tab's lock \((SecurityError|AbortError)/);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { own: 1 } });
    expect(host.calls).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]![0])).toMatch(/Web Locks refused this tab's lock/);
    expect(unhandled).toEqual([]);
  },
);
