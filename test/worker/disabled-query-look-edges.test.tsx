// @vitest-environment jsdom
/**
 * The look a SharedWorker tab's disabled shared query takes at what the worker holds (see
 * disabled-query-shows-recorded.test.tsx), at its edges: asked once per query however often the
 * pane renders (each render updates its options, and TanStack reports each update: with nothing
 * recorded, every render that came after the last answer asked again); what it kept is not taken
 * for current once another tab recorded a newer result (the query enabled, or another pane of the
 * key mounted): the newer shows, with no request, never the older after it; an answer that comes
 * after its query went puts nothing back. Real ports, the worker's real store and Yjs docs; the
 * simulated host; the tab's messages to its worker counted.
 */
import { QueryClient, useInfiniteQuery, useQueries, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { useState, type ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import {
  sharedInfiniteQueryOptions,
  sharedQueryKey,
  sharedQueryOptions,
  useProgram,
  useSharedFetch,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { browser } from "./browser-sim.ts";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});
const URL = "http://127.0.0.1:9/api/look-edges";
type N = { n: number };
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const shown = (id = "t") => screen.getByTestId(id).textContent;

/** A browser whose host answers `{ n: call number }`, and a tab whose messages to its worker are recorded. */
function setUp() {
  const b = browser(new Host());
  b.host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs: 5 });
  const sent: { t: string; key?: string }[] = [];
  const counted = () =>
    b.tab({
      worker: (name) => {
        const { port } = b.start(name);
        const post = port.postMessage.bind(port);
        port.postMessage = (m: unknown) => (sent.push(m as { t: string }), post(m as never));
        return { port };
      },
    }) as SharedFetchStoreWithExtras;
  const looks = () => sent.filter((m) => m.t === "look");
  /** Resolves once the tab's worker has answered it (a subscription's first answer; nothing asked). */
  const served = (tab: SharedFetchStoreWithExtras) => tab.heard!("fetch", { url: `${URL}/served` });
  return { b, counted, looks, served };
}

/** Its children rendered again at each click of "again" (a parent's state changing). */
function Rerenders({ children }: { children: () => ReactNode }) {
  const [tick, setTick] = useState(0);
  return (
    <>
      <button data-testid="again" onClick={() => setTick((t) => t + 1)} />
      {tick >= 0 && children()}
    </>
  );
}
const renderAgain = async (times: number) => {
  for (let i = 0; i < times; i++) await act(async () => screen.getByTestId("again").click());
};
/** Renders `view` in the tab's app, lets its looks go out, then renders it ten times more. */
async function renderTenTimes(tab: SharedFetchStoreWithExtras, view: () => ReactNode) {
  render(app(tab, <Rerenders>{view}</Rerenders>, new QueryClient()));
  await pause(30);
  await renderAgain(10);
  await pause(30);
}

describe("a disabled query's look is asked once per key, not on every render", () => {
  it("useQuery(sharedQueryOptions(…, { enabled: false })), nothing recorded: one look over ten renders", async () => {
    const { counted, looks, served } = setUp();
    const tab = counted();
    await served(tab);
    function Pane() {
      const q = useQuery(sharedQueryOptions<N>(tab, URL, { enabled: false }));
      return <span data-testid="t">{q.data ? String(q.data.n) : q.status}</span>;
    }
    await renderTenTimes(tab, () => <Pane />);
    expect(shown()).toBe("pending");
    expect(looks()).toHaveLength(1);
  });

  it("useSharedFetch(url, { enabled: false }), nothing recorded: one look over ten renders", async () => {
    const { counted, looks, served } = setUp();
    const tab = counted();
    await served(tab);
    function Pane() {
      const q = useSharedFetch<N>(URL, { enabled: false });
      return <span data-testid="t">{q.data ? String(q.data.n) : q.status}</span>;
    }
    await renderTenTimes(tab, () => <Pane />);
    expect(shown()).toBe("pending");
    expect(looks()).toHaveLength(1);
  });

  it("useQueries with three disabled shared queries, nothing recorded: one look per key over ten renders", async () => {
    const { counted, looks, served } = setUp();
    const tab = counted();
    await served(tab);
    function Panes() {
      const qs = useQueries({ queries: [1, 2, 3].map((i) => sharedQueryOptions<N>(tab, `${URL}/${i}`, { enabled: false })) });
      return <span data-testid="t">{qs.map((q) => q.status).join(",")}</span>;
    }
    await renderTenTimes(tab, () => <Panes />);
    expect(shown()).toBe("pending,pending,pending");
    expect(looks()).toHaveLength(3);
    expect(new Set(looks().map((m) => m.key)).size).toBe(3);
  });
});

describe("a disabled feed's and program's looks are asked once, not on every render", () => {
  const page = (cursor: number) => `${URL}/feed?cursor=${cursor}`;
  function Feed({ tab }: { tab: SharedFetchStoreWithExtras }) {
    const q = useInfiniteQuery(
      sharedInfiniteQueryOptions(tab, (cursor: number) => page(cursor), {
        initialPageParam: 0,
        getNextPageParam: (last: { next: number | null }) => last.next,
        enabled: false,
      }),
    );
    return <span data-testid="t">{q.data ? String(q.data.pages.length) : q.status}</span>;
  }

  it("a feed of three recorded pages: one look per page over ten renders", async () => {
    const { b, counted, looks, served } = setUp();
    b.host.auto = (call) => {
      const cursor = Number(new globalThis.URL(call.url).searchParams.get("cursor"));
      return { status: 200, body: { next: cursor < 2 ? cursor + 1 : null } };
    };
    const first = b.tab();
    for (const cursor of [0, 1, 2]) await first.ensure({ url: page(cursor) });
    const tab = counted();
    await served(tab);
    await renderTenTimes(tab, () => <Feed tab={tab} />);
    expect(shown()).toBe("3");
    expect(looks()).toHaveLength(3);
  });

  it("a feed, nothing recorded: one look over ten renders", async () => {
    const { counted, looks, served } = setUp();
    const tab = counted();
    await served(tab);
    await renderTenTimes(tab, () => <Feed tab={tab} />);
    expect(shown()).toBe("pending");
    expect(looks()).toHaveLength(1);
  });

  it("useProgram(url, { enabled: false }), nothing recorded: one look over ten renders", async () => {
    const { counted, looks, served } = setUp();
    const tab = counted();
    await served(tab);
    function Program() {
      const q = useProgram(`${URL}/main.ts`, { enabled: false });
      return <span data-testid="t">{q.data ? q.data.main : q.status}</span>;
    }
    await renderTenTimes(tab, () => <Program />);
    expect(shown()).toBe("pending");
    expect(looks()).toHaveLength(1);
  });
});

describe("what a look kept is not taken for current once another tab records a newer result", () => {
  function Pane({
    store,
    enabled,
    staleTime,
    id = "t",
  }: {
    store: SharedFetchStoreWithExtras;
    enabled: boolean;
    staleTime: number;
    id?: string;
  }) {
    const q = useQuery(sharedQueryOptions<N>(store, URL, { staleTime, enabled }));
    return <span data-testid={id}>{q.data ? String(q.data.n) : `${q.status}/${q.fetchStatus}`}</span>;
  }
  /** Tab A records 1; tab B's disabled pane shows it through its look; A records 2. */
  async function lookedThenNewer(staleTime: number, waitMs = 0) {
    const { b, counted, served } = setUp();
    const first = b.tab();
    await first.ensure({ url: URL });
    const second = counted();
    await served(second);
    const client = new QueryClient();
    const seen: string[] = [];
    const view = (enabled: boolean) => app(second, <Pane store={second} enabled={enabled} staleTime={staleTime} />, client);
    const { rerender } = render(view(false));
    await waitFor(() => expect(shown()).toBe("1"));
    // What it kept grows stale on the clock alone, moved on here rather than waited for: a wait as
    // long as the staleTime let the newer result go stale too on a loaded machine (a third request).
    if (waitMs) {
      const now = Date.now.bind(Date);
      vi.spyOn(Date, "now").mockImplementation(() => now() + waitMs);
    }
    await first.refetch({ url: URL });
    client.getQueryCache().subscribe(() => seen.push(String((client.getQueryData(sharedQueryKey(second, URL)) as N | undefined)?.n)));
    return { b, second, seen, enable: () => act(() => rerender(view(true))) };
  }

  it("enabled while what it kept is still fresh: shows the newer result, with no request, never the older after it", async () => {
    const { b, seen, enable } = await lookedThenNewer(60_000);
    await enable();
    await waitFor(() => expect(shown()).toBe("2"));
    await pause(30);
    expect(shown()).toBe("2");
    expect(seen.slice(seen.indexOf("2"))).not.toContain("1");
    expect(b.host.calls).toHaveLength(2);
  });

  it("enabled once what it kept is stale, the newer result still fresh: the newer shows, with no request", async () => {
    const { b, seen, enable } = await lookedThenNewer(60_000, 60_050);
    await enable();
    await waitFor(() => expect(shown()).toBe("2"));
    await pause(30);
    expect(seen.slice(seen.indexOf("2"))).not.toContain("1");
    expect(b.host.calls).toHaveLength(2);
  });

  it("an enabled pane of the same key mounted beside it in another client: the newer result, with no request", async () => {
    const { b, second } = await lookedThenNewer(60_000);
    render(app(second, <Pane store={second} enabled staleTime={60_000} id="other" />, new QueryClient()));
    await waitFor(() => expect(shown("other")).toBe("2"));
    await pause(30);
    expect(shown("other")).toBe("2");
    expect(b.host.calls).toHaveLength(2);
  });
});

describe("a look answered after its query went", () => {
  function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
    const q = useQuery(sharedQueryOptions<N>(store, URL, { enabled: false }));
    return <span data-testid="t">{q.data ? String(q.data.n) : q.status}</span>;
  }

  it("unmounted and removed before the worker answered: nothing comes back into the cache, nothing is reported", async () => {
    const { b, counted, looks, served } = setUp();
    await b.tab().ensure({ url: URL });
    const errors = vi.spyOn(console, "error");
    const second = counted();
    await served(second);
    const client = new QueryClient();
    // The look goes as the pane mounts; the worker's answer comes a task later.
    const { unmount } = render(app(second, <Pane store={second} />, client));
    expect(looks()).toHaveLength(1);
    unmount();
    client.removeQueries();
    await pause(30);
    expect(client.getQueryCache().getAll()).toHaveLength(0);
    expect(errors).not.toHaveBeenCalled();
    expect(b.host.calls).toHaveLength(1);
  });

  it("removed while the tab's hello is under way: the look is withdrawn with it, never sent", async () => {
    const { b, counted, looks } = setUp();
    await b.tab().ensure({ url: URL });
    const second = counted();
    const client = new QueryClient();
    const { unmount } = render(app(second, <Pane store={second} />, client));
    unmount();
    client.removeQueries();
    await second.heard!("fetch", { url: URL });
    await pause(30);
    expect(looks()).toHaveLength(0);
    expect(client.getQueryCache().getAll()).toHaveLength(0);
    expect(b.host.calls).toHaveLength(1);
  });
});
