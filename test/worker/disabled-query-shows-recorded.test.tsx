// @vitest-environment jsdom
/**
 * A disabled shared query (`enabled: false`: a dependent query waiting for its input, or one that
 * only reads shared data) shows the result another tab recorded, in a tab of the SharedWorker
 * replica as in a per-tab one. A per-tab tab reads its own doc at once (the record is the query's
 * initialData); a worker tab that does not hear of the key asks its worker once: one round trip,
 * no request, and nothing subscribed in the worker's store (a subscriber there would take over
 * work another replica abandoned, which a disabled query never does). It showed `pending` with no
 * data. A result recorded later stays out of the disabled query in both, as TanStack keeps a
 * disabled query's data, and shows once it is enabled, with no request. Real ports, the worker's
 * real store and Yjs docs; the simulated host.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { browser } from "./browser-sim.ts";
import { tabsOfOneBrowser } from "./tabs-of-one-browser.ts";

afterEach(cleanup);
const URL = "http://127.0.0.1:9/api/disabled-shows-recorded";
type N = { n: number };
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const shown = () => screen.getByTestId("t").textContent;

function Pane({ store, enabled }: { store: SharedFetchStoreWithExtras; enabled: boolean }) {
  const q = useQuery(sharedQueryOptions<N>(store, URL, { staleTime: 60_000, enabled }));
  return <span data-testid="t">{q.data ? String(q.data.n) : `${q.status}/${q.fetchStatus}`}</span>;
}

describe.each(Object.keys(tabsOfOneBrowser) as (keyof typeof tabsOfOneBrowser)[])("%s", (kind) => {
  /** The host answers `{ n: call number }`. */
  function setUp() {
    const tabs = tabsOfOneBrowser[kind]();
    tabs.host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs: 5 });
    return tabs;
  }
  /** The second tab mounts the query disabled (at once: a worker tab's hello is still under way). */
  function mountSecond(second: SharedFetchStoreWithExtras) {
    const client = new QueryClient();
    const { rerender } = render(app(second, <Pane store={second} enabled={false} />, client));
    return () => act(() => rerender(app(second, <Pane store={second} enabled />, client)));
  }

  it("another tab's recorded result shows in a disabled query, with no request", async () => {
    const { host, first, second } = setUp();
    await first.ensure({ url: URL });
    mountSecond(second());
    await waitFor(() => expect(shown()).toBe("1"));
    await pause(30);
    expect(host.calls).toHaveLength(1);
  });

  it("a result recorded later stays out of the disabled query, as TanStack keeps its data; enabled, it shows with no request", async () => {
    const { host, first, second } = setUp();
    await first.ensure({ url: URL });
    const enable = mountSecond(second());
    await waitFor(() => expect(shown()).toBe("1"));
    await first.refetch({ url: URL });
    await pause(30);
    expect(shown()).toBe("1");
    enable();
    await waitFor(() => expect(shown()).toBe("2"));
    await pause(30);
    expect(host.calls).toHaveLength(2);
  });

  it("nothing recorded: the disabled query reads pending and idle, and nothing is sent", async () => {
    const { host, second } = setUp();
    mountSecond(second());
    await pause(50);
    expect(shown()).toBe("pending/idle");
    expect(host.calls).toHaveLength(0);
  });
});

describe("a worker tab's disabled query asks the worker only to read", () => {
  it("the worker's store gets no subscription for it (a subscriber would finish abandoned work)", async () => {
    const b = browser(new Host());
    b.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const first = b.tab();
    await first.ensure({ url: URL });
    const subscribe = vi.spyOn(b.workerStore(), "subscribe");
    const second = b.tab() as SharedFetchStoreWithExtras;
    render(app(second, <Pane store={second} enabled={false} />, new QueryClient()));
    await waitFor(() => expect(shown()).toBe("1"));
    expect(subscribe).not.toHaveBeenCalled();
  });
});
