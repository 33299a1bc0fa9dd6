// @vitest-environment jsdom
/**
 * A disabled infinite feed (`sharedInfiniteQueryOptions(…, { enabled: false })`) and a disabled
 * program (`useProgram(url, { enabled: false })`) show what another tab recorded, in a tab of the
 * SharedWorker replica as in a per-tab one: the feed's chain whole, as a reload shows it, the
 * program resolved. A per-tab tab reads its own doc (the record is the query's initialData); a
 * worker tab looks up each page, or the program, in its worker (no request, nothing subscribed
 * there). Both read pending with no data in a worker tab before.
 *
 * And a disabled query that found nothing recorded shows a result recorded later: a per-tab tab at
 * its next render (TanStack reads a query's initialData again while it holds no data); a worker
 * tab heard of it only once the query was enabled before. Real ports, the worker's real store and
 * Yjs docs; the simulated host.
 */
import { QueryClient, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { sharedInfiniteQueryOptions, sharedQueryOptions, useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { browser } from "./browser-sim.ts";
import { tabsOfOneBrowser } from "./tabs-of-one-browser.ts";

afterEach(cleanup);
const FEED = "http://127.0.0.1:9/api/disabled-feed";
const PROGRAM = "http://127.0.0.1:9/app/disabled-main.ts";
const API = "http://127.0.0.1:9/api/disabled-later";
type Page = { cursor: number; next: number | null };
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const shown = () => screen.getByTestId("t").textContent;
const page = (cursor: number) => `${FEED}?cursor=${cursor}`;

function Feed({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, (cursor: number) => page(cursor), {
      initialPageParam: 0,
      getNextPageParam: (last: Page) => last.next,
      staleTime: 60_000,
      enabled: false,
    }),
  );
  return <span data-testid="t">{q.data ? q.data.pages.map((p) => p.cursor).join(" ") : `${q.status}/${q.fetchStatus}`}</span>;
}

function Program() {
  const q = useProgram(PROGRAM, { enabled: false });
  return <span data-testid="t">{q.data ? q.data.files[0]!.contents.trim() : `${q.status}/${q.fetchStatus}`}</span>;
}

function Query({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, API, { staleTime: 60_000, enabled: false }));
  return <span data-testid="t">{q.data ? String(q.data.n) : `${q.status}/${q.fetchStatus}`}</span>;
}

describe.each(Object.keys(tabsOfOneBrowser) as (keyof typeof tabsOfOneBrowser)[])("%s", (kind) => {
  /** The host answers a feed of pages 0–2, the program's module, and `{ n: call number }`. */
  function setUp() {
    const tabs = tabsOfOneBrowser[kind]();
    tabs.host.auto = (call) => {
      const url = new globalThis.URL(call.url);
      if (url.pathname.endsWith(".ts")) return { status: 200, text: "export const n = 1;\n", delayMs: 5 };
      const cursor = url.searchParams.get("cursor");
      if (cursor === null) return { status: 200, body: { n: call.n }, delayMs: 5 };
      return { status: 200, body: { cursor: Number(cursor), next: Number(cursor) < 2 ? Number(cursor) + 1 : null }, delayMs: 5 };
    };
    return tabs;
  }
  const recordFeed = async (store: SharedFetchStoreWithExtras) => {
    for (const cursor of [0, 1, 2]) await store.ensure({ url: page(cursor) });
  };
  /** Mounts `view` in the second tab at once (a worker tab's hello still under way); returns a re-render. */
  function mount(second: SharedFetchStoreWithExtras, view: () => ReactNode) {
    const client = new QueryClient();
    const { rerender } = render(app(second, view(), client));
    return () => act(() => rerender(app(second, view(), client)));
  }

  it("a disabled feed shows the chain another tab recorded, whole, with no request", async () => {
    const { host, first, second } = setUp();
    await recordFeed(first);
    const tab = second();
    mount(tab, () => <Feed store={tab} />);
    await waitFor(() => expect(shown()).toBe("0 1 2"));
    await pause(30);
    expect(shown()).toBe("0 1 2");
    expect(host.calls).toHaveLength(3);
  });

  it("a disabled program shows the resolution another tab recorded, with no request", async () => {
    const { host, first, second } = setUp();
    await first.ensureProgram({ url: PROGRAM });
    const tab = second();
    mount(tab, () => <Program />);
    await waitFor(() => expect(shown()).toBe("export const n = 1;"));
    await pause(30);
    expect(host.calls).toHaveLength(1);
  });

  it("a disabled query that found nothing recorded shows a result recorded later by its next render, with no request", async () => {
    const { host, first, second } = setUp();
    const tab = second();
    const again = mount(tab, () => <Query store={tab} />);
    await pause(30);
    expect(shown()).toBe("pending/idle");
    await first.ensure({ url: API });
    await pause(30);
    await again();
    await waitFor(() => expect(shown()).toBe("1"));
    await pause(30);
    expect(host.calls).toHaveLength(1);
  });

  it("a disabled feed that found nothing recorded shows the chain recorded later by its next render, with no request", async () => {
    const { host, first, second } = setUp();
    const tab = second();
    const again = mount(tab, () => <Feed store={tab} />);
    await pause(30);
    expect(shown()).toBe("pending/idle");
    await recordFeed(first);
    await pause(30);
    await again();
    await waitFor(() => expect(shown()).toBe("0 1 2"));
    await pause(30);
    expect(host.calls).toHaveLength(3);
  });

  it("a disabled program that found nothing recorded shows the resolution recorded later by its next render, with no request", async () => {
    const { host, first, second } = setUp();
    const tab = second();
    const again = mount(tab, () => <Program />);
    await pause(30);
    expect(shown()).toBe("pending/idle");
    await first.ensureProgram({ url: PROGRAM });
    await pause(30);
    await again();
    await waitFor(() => expect(shown()).toBe("export const n = 1;"));
    await pause(30);
    expect(host.calls).toHaveLength(1);
  });
});

describe("a worker tab's disabled feed and program ask the worker only to read", () => {
  it("the worker's store gets no subscription for them (a subscriber would finish abandoned work)", async () => {
    const b = browser(new Host());
    b.host.auto = (call) =>
      call.url.endsWith(".ts") ? { status: 200, text: "export const n = 1;\n" } : { status: 200, body: { cursor: 0, next: null } };
    const first = b.tab();
    await first.ensure({ url: page(0) });
    await first.ensureProgram({ url: PROGRAM });
    const subscribe = vi.spyOn(b.workerStore(), "subscribe");
    const subscribeProgram = vi.spyOn(b.workerStore(), "subscribeProgram");
    const second = b.tab() as SharedFetchStoreWithExtras;
    render(
      app(
        second,
        <>
          <Feed store={second} />
          <Program />
        </>,
      ),
    );
    await waitFor(() => expect(screen.getAllByTestId("t").map((e) => e.textContent)).toEqual(["0", "export const n = 1;"]));
    expect(subscribe).not.toHaveBeenCalled();
    expect(subscribeProgram).not.toHaveBeenCalled();
  });
});
