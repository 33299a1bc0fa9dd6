// @vitest-environment jsdom
/**
 * An `enabled` that is neither a boolean nor a function (JavaScript's `enabled: user && user.id`
 * with no user yet: null, "" or 0) is refused naming it, as TanStack's useQuery refuses it, and
 * nothing is sent. sharedQueryOptions and sharedProgramOptions wrap `enabled` in a function of
 * their own (fetch-record.ts, notingDisabled), whose answer TanStack does not check: the value was read
 * as "not false", and the query sent its request for a user that was not there.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { Component, type ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  SharedFetchProvider,
  sharedProgramOptions,
  sharedQueryOptions,
  useSharedFetch,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { advance } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);

class Catch extends Component<{ children: ReactNode; caught: (e: Error) => void }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: Error) {
    this.props.caught(error);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

/** Renders `pane` over a fresh replica; returns the requests sent and the error caught, if any. */
async function mount(pane: (store: SharedFetchStoreWithExtras) => unknown) {
  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  const caught: Error[] = [];
  const Pane = () => (pane(c.stores[0]!), null);
  const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={c.stores[0]!}>
        <Catch caught={(e) => caught.push(e)}>
          <Pane />
        </Catch>
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  await advance(100);
  quiet.mockRestore();
  return { calls: c.host.calls.length, error: caught[0]?.message };
}

const refused = (shown: string) => `shared-fetch: \`enabled\` must be a boolean or a function of the query, got ${shown}`;

describe("bad input: an enabled that is no boolean nor function is refused naming it, nothing sent", () => {
  beforeEach(useFakeClock);

  for (const [bad, shown] of [
    [null, "null"],
    ["", '""'],
    [0, "0"],
  ] as const) {
    it(`useQuery(sharedQueryOptions(…, { enabled: ${shown} })): refused, no request`, async () => {
      const run = await mount((store) => useQuery(sharedQueryOptions(store, URL_A, { enabled: bad as never })));
      expect(run).toEqual({ calls: 0, error: refused(shown) });
    });
  }

  it("useSharedFetch and sharedProgramOptions: the same", async () => {
    expect(await mount(() => useSharedFetch(URL_A, { enabled: null as never }))).toEqual({ calls: 0, error: refused("null") });
    const program = await mount((store) => useQuery(sharedProgramOptions(store, URL_A, { enabled: null as never })));
    expect(program).toEqual({ calls: 0, error: refused("null") });
  });

  it("false, or a function that says false, still disables quietly", async () => {
    expect(await mount((store) => useQuery(sharedQueryOptions(store, URL_A, { enabled: false })))).toEqual({ calls: 0, error: undefined });
    expect(await mount((store) => useQuery(sharedQueryOptions(store, URL_A, { enabled: () => false })))).toEqual({
      calls: 0,
      error: undefined,
    });
  });
});
