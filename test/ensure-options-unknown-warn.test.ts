/**
 * A key `ensure`, `refetch`, `ensureProgram` or `refetchProgram` does not know is warned of, once
 * per call and key, as the entry points' unknown options are. Before, `store.ensure(req, {
 * staleTime: 30_000 })`, TanStack's name for maxAgeMs, was dropped without a word: the call took
 * any recorded result, however old, and sent no request.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { Host } from "../sim/host.ts";
import { cluster, URL_A } from "./harness/replicas.ts";
import { browser } from "./worker/browser-sim.ts";

let warn: MockInstance<typeof console.warn>;
const warnings = () => warn.mock.calls.map((args) => String(args[0]));
beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

const REQ = { url: URL_A };
const aborted = () => AbortSignal.abort();
const swallow = (p: Promise<unknown>) => p.catch(() => undefined);

describe("ensure's options: an unknown key is warned of, naming the option meant", () => {
  it("store.ensure({ staleTime }): TanStack's name is answered with maxAgeMs, once however often it is given", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { v: 1 } });
    const store = c.stores[0]!;
    await store.ensure(REQ);
    await store.ensure(REQ, { staleTime: 30_000 } as never);
    await store.ensure(REQ, { staleTime: 30_000 } as never);
    expect(warnings()).toEqual(["shared-fetch: store.ensure ignores `staleTime`; did you mean `maxAgeMs`?"]);
  });

  it("store.refetch({ skipInflight }) names skipInFlight; the same key at ensure is told there too (once per call and key)", async () => {
    const c = cluster(1, { settleMs: 0 });
    const store = c.stores[0]!;
    await swallow(store.refetch(REQ, { signal: aborted(), skipInflight: true } as never));
    await swallow(store.ensure(REQ, { signal: aborted(), skipInflight: true } as never));
    expect(warnings()).toEqual([
      "shared-fetch: store.refetch ignores `skipInflight`; did you mean `skipInFlight`?",
      "shared-fetch: store.ensure ignores `skipInflight`; did you mean `skipInFlight`?",
    ]);
    expect(c.host.calls).toEqual([]);
  });

  it("ensureProgram({ staleTime }) and refetchProgram({ maxAgeMS }); a key far from every option lists them", async () => {
    const store = cluster(1, { settleMs: 0 }).stores[0]!;
    const req = { url: "https://modules.example.test/main.ts" };
    await swallow(store.ensureProgram(req, { signal: aborted(), staleTime: 1000 } as never));
    await swallow(store.refetchProgram(req, { signal: aborted(), maxAgeMS: 1000 } as never));
    await swallow(store.refetchProgram(req, { signal: aborted(), gcTime: 0 } as never));
    expect(warnings()).toEqual([
      "shared-fetch: store.ensureProgram ignores `staleTime`; did you mean `maxAgeMs`?",
      "shared-fetch: store.refetchProgram ignores `maxAgeMS`; did you mean `maxAgeMs`?",
      "shared-fetch: store.refetchProgram ignores `gcTime`; known: signal, leaseMs, maxAgeMs, retry, retryDelay, skipInFlight",
    ]);
  });

  it("a connectBrowser tab's ensure warns in the tab (where the app's console is)", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { v: 1 } });
    const tab = browser(host).tab();
    // A key of its own: `staleTime` at store.ensure was told above, for the page's life.
    await tab.ensure(REQ, { maxAge: 30_000, leaseMs: 4000, retry: 1 } as never);
    expect(warnings()).toEqual(["shared-fetch: store.ensure ignores `maxAge`; did you mean `maxAgeMs`?"]);
    tab.destroy();
  });
});
