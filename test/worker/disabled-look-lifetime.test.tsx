// @vitest-environment jsdom
/**
 * How long a SharedWorker tab's look at what its worker holds lasts (a disabled shared query's,
 * see disabled-feed-and-program-show-recorded.test.tsx): while its query lasts, and no longer.
 * - The worker forgets the looks of queries the tab removed: a tab that mounts and removes many
 *   distinct disabled queries leaves nothing behind in the worker (each store change there read
 *   every one of them, and each result recorded later for them was posted to the tab).
 * - A feed removed before its first page look went asks nothing.
 * - A feed's pages are read at one moment of the worker's doc: another tab refreshing the feed
 *   between two page looks never leaves a chain that mixes the two refreshes.
 * Real ports, the worker's real store and Yjs docs; the simulated host; the port's messages counted.
 */
import { QueryClient, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { sharedInfiniteQueryOptions, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const URL = "http://127.0.0.1:9/api/look-lifetime";
type Message = { t: string; key?: string; req?: { url?: string } };
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const page = (cursor: number) => `${URL}/feed?cursor=${cursor}`;

/**
 * A browser whose host answers `{ n }` and feed pages 0–2 of the current `refresh`; a tab whose
 * messages to its worker (`sent`, each passed through `hold` first) and from it (`got`) are kept.
 */
function setUp() {
  const b = browser(new Host());
  let refresh = 1;
  b.host.auto = (call) => {
    const cursor = new globalThis.URL(call.url).searchParams.get("cursor");
    if (cursor === null) return { status: 200, body: { n: call.n }, delayMs: 1 };
    return { status: 200, body: { cursor: Number(cursor), refresh, next: Number(cursor) < 2 ? Number(cursor) + 1 : null }, delayMs: 1 };
  };
  const sent: Message[] = [];
  const got: Message[] = [];
  const io = {
    hold: (() => undefined) as (m: Message) => Promise<void> | undefined,
    refresh: () => refresh++,
  };
  const tab = b.tab({
    worker: (name) => {
      const { port } = b.start(name);
      const post = port.postMessage.bind(port);
      port.postMessage = (m: unknown) => {
        sent.push(m as Message);
        const held = io.hold(m as Message);
        if (held) void held.then(() => post(m as never));
        else post(m as never);
      };
      const listen = port.addEventListener.bind(port);
      port.addEventListener = ((type: "message", listener: (e: MessageEvent) => void) =>
        listen(type, (e: MessageEvent) => {
          const data = e.data as Message & { messages?: Message[] };
          got.push(...(data.t === "batch" ? data.messages! : [data]));
          listener(e);
        })) as typeof port.addEventListener;
      return { port };
    },
  }) as SharedFetchStoreWithExtras;
  return { b, tab, sent, got, io, served: () => tab.heard!("fetch", { url: `${URL}/served` }) };
}

function Feed({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, (cursor: number) => page(cursor), {
      initialPageParam: 0,
      getNextPageParam: (last: { next: number | null }) => last.next,
      enabled: false,
    }),
  );
  const pages = q.data?.pages as { cursor: number; refresh: number }[] | undefined;
  return <span data-testid="t">{pages ? pages.map((p) => `${p.cursor}@${p.refresh}`).join(" ") : q.status}</span>;
}

describe("a look lasts while its query does", () => {
  it("twenty disabled queries mounted and removed in turn: the worker reads none of them again, and posts nothing of them", async () => {
    const { b, tab, got, served } = setUp();
    await served();
    const client = new QueryClient();
    const urls = Array.from({ length: 20 }, (_, i) => `${URL}/k${i}`);
    for (const url of urls) {
      function Pane() {
        const q = useQuery(sharedQueryOptions(tab, url, { enabled: false }));
        return <span data-testid="t">{q.status}</span>;
      }
      const { unmount } = render(app(tab, <Pane />, client));
      await waitFor(() => expect(got.filter((m) => m.t === "snap" && m.key === tab.keyOf({ url }))).toHaveLength(1));
      unmount();
      client.removeQueries();
    }
    await pause(10);
    const read = vi.spyOn(b.workerStore(), "resultInfo");
    got.length = 0;
    const other = b.tab();
    for (const url of urls.slice(0, 3)) await other.ensure({ url });
    await pause(20);
    expect(got.filter((m) => m.t === "snap")).toEqual([]);
    const asked = read.mock.calls.map(([req]) => (typeof req === "string" ? req : req.url));
    // The three recorded are read for the other tab's own asks; the rest, by nobody.
    expect(asked.filter((url) => urls.slice(3).includes(url))).toEqual([]);
    expect(b.host.calls).toHaveLength(3);
  });

  it("a disabled feed removed in the render that mounted it: no page look goes to the worker", async () => {
    const { tab, sent, served } = setUp();
    await served();
    const client = new QueryClient();
    sent.length = 0;
    const { unmount } = render(app(tab, <Feed store={tab} />, client));
    unmount();
    client.removeQueries();
    await pause(30);
    expect(sent.filter((m) => m.t === "look")).toEqual([]);
  });
});

describe("a disabled feed's chain is read at one moment of the worker's doc", () => {
  it("another tab refreshes the feed between the first and the second page look: the chain shown is the refresh's, whole", async () => {
    const { b, tab, io, served } = setUp();
    const other = b.tab();
    for (const cursor of [0, 1, 2]) await other.ensure({ url: page(cursor) });
    await served();
    let refreshed = false;
    io.hold = (m) => {
      if (m.t !== "look" || m.req?.url !== page(1) || refreshed) return undefined;
      refreshed = true;
      return (async () => {
        io.refresh();
        for (const cursor of [0, 1, 2]) await other.refetch({ url: page(cursor) });
      })();
    };
    render(app(tab, <Feed store={tab} />, new QueryClient()));
    await waitFor(() => expect(screen.getByTestId("t").textContent).toMatch(/^0@\d 1@\d 2@\d$/));
    expect(refreshed).toBe(true);
    expect(screen.getByTestId("t").textContent).toBe("0@2 1@2 2@2");
    expect(b.host.calls).toHaveLength(6);
  });
});
