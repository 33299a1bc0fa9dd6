// @vitest-environment jsdom
/**
 * A request's field given among a hook's options (`useSharedFetch(url, { headers: { Authorization } })`,
 * `{ method: "POST" }`, `{ body }`) is named in one warning that says where it goes. TypeScript
 * refuses it, but in JavaScript the options are TanStack's: the request went out as a bare GET
 * without its Authorization header, and nothing said why. A warning, as for an unknown option of
 * any entry point: once per entry point and field for the page's life (each case uses fields of its own).
 */
import { useQuery } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { sharedQueryOptions, useSharedFetch, useSharedFetchSuspense, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

let warn: MockInstance<typeof console.warn>;
const warnings = () => warn.mock.calls.map((args) => String(args[0]));

beforeEach(() => {
  useFakeClock();
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  warn.mockRestore();
});

/** Renders `pane` over a fresh replica twice (a second render must not warn again); returns the requests sent. */
async function mount(pane: (store: SharedFetchStoreWithExtras) => unknown) {
  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  const Pane = () => (pane(c.stores[0]!), null);
  const view = render(app(c.stores[0]!, <Pane />));
  await advance(100);
  view.rerender(app(c.stores[0]!, <Pane />));
  await advance(100);
  return c.host.calls;
}

describe("request fields among a hook's options: a warning names the field and says to put it in the request", () => {
  it("useSharedFetch(url, { headers }): named once, across renders; the request is sent as given (no header)", async () => {
    const calls = await mount(() => useSharedFetch(URL_A, { headers: { Authorization: "Bearer t" } } as never));
    expect(warnings()).toEqual(["shared-fetch: useSharedFetch ignores `headers`; it belongs in the request: { url, headers }"]);
    expect(calls).toHaveLength(1);
  });

  it("useSharedFetch(url, { method, body }): each field named", async () => {
    await mount(() => useSharedFetch(URL_A, { method: "POST", body: "{}" } as never));
    expect(warnings()).toEqual([
      "shared-fetch: useSharedFetch ignores `method`; it belongs in the request: { url, method }",
      "shared-fetch: useSharedFetch ignores `body`; it belongs in the request: { url, body }",
    ]);
  });

  it("useSharedFetchSuspense and sharedQueryOptions name themselves (the same field, `parse`, told at each)", async () => {
    await mount(() => useSharedFetchSuspense(URL_A, { parse: "text" } as never));
    await mount((store) => useQuery(sharedQueryOptions(store, URL_A, { parse: "text" } as never)));
    expect(warnings()).toEqual([
      "shared-fetch: useSharedFetchSuspense ignores `parse`; it belongs in the request: { url, parse }",
      "shared-fetch: sharedQueryOptions ignores `parse`; it belongs in the request: { url, parse }",
    ]);
  });

  it("TanStack's own options (staleTime, select, meta) and the hooks' (leaseMs, queryKey) are no warning", async () => {
    await mount(() => useSharedFetch(URL_A, { staleTime: 1000, select: (d) => d, meta: { url: "x" }, leaseMs: 5000, queryKey: ["k"] }));
    expect(warnings()).toEqual([]);
  });
});
