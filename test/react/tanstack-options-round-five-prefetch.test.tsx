// @vitest-environment jsdom
/**
 * The fifth round, continued: TanStack's prefetching hooks and mutation defaults on the package's
 * options beside plain ones over fetch, against a real HTTP server on 127.0.0.1 that counts what it
 * is sent: `usePrefetchQuery` and `usePrefetchInfiniteQuery` above a suspending pane,
 * `setMutationDefaults` with a `useMutation` named by its key, and a mutation `scope` (its calls,
 * made online or offline, run one after the other, equal ones too).
 */
import {
  onlineManager,
  QueryClient,
  useMutation,
  usePrefetchInfiniteQuery,
  usePrefetchQuery,
  useSuspenseInfiniteQuery,
  useSuspenseQuery,
  type InfiniteData,
  type QueryKey,
  type UseSuspenseQueryOptions,
  type UseSuspenseInfiniteQueryOptions,
} from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { Suspense, type ReactNode } from "react";
import { afterEach, expect, it } from "vitest";
import { sharedInfiniteQueryOptions, sharedMutationFn } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, text, twoTabs, unprefixed, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => onlineManager.setOnline(true));
const sent = () => ["/s", "/p"].map((side) => server.seen.filter((p) => p.startsWith(side)).length);
const both = (ids: string[], value: string) => waitFor(() => expect(ids.map((id) => text(id))).toEqual(ids.map(() => value)));

/** Both ways in one tab on store `a`, each side (`side(0)` shared, `side(1)` plain) under a Suspense boundary that says "loading". */
function renderBothWays(a: ReturnType<typeof twoTabs>[0], side: (which: 0 | 1) => ReactNode) {
  render(
    app(
      a,
      <>
        {([0, 1] as const).map((w) => (
          <Suspense key={w} fallback={<span data-testid={`side${w}`}>loading</span>}>
            {side(w)}
          </Suspense>
        ))}
      </>,
    ),
  );
}

it("usePrefetchQuery above a pane that suspends on the same options: one request each way, its answer shown", async () => {
  const [a] = twoTabs();
  // Neither side is skipToken, which the suspending hooks refuse.
  const sides = sideBySide(server, a, "/prefetch") as unknown as UseSuspenseQueryOptions<Body>[];
  function Shown({ which }: { which: 0 | 1 }) {
    const q = useSuspenseQuery(sides[which]!);
    return <span data-testid={`side${which}`}>{`${unprefixed(q.data.path)}:${q.data.n}`}</span>;
  }
  function Prefetch({ which }: { which: 0 | 1 }) {
    usePrefetchQuery(sides[which]!);
    return null;
  }
  renderBothWays(a, (w) => (
    <>
      <Prefetch which={w} />
      <Shown which={w} />
    </>
  ));
  await both(["side0", "side1"], "/prefetch:1");
  await pause(50); // a second request would have left by now
  expect(sent()).toEqual([1, 1]);
});

type Feed = UseSuspenseInfiniteQueryOptions<Body, Error, InfiniteData<Body, number>, QueryKey, number>;

it("usePrefetchInfiniteQuery above a pane that suspends on the feed: the first page once each way, shown", async () => {
  const [a] = twoTabs();
  const feeds: [Feed, Feed] = [
    sharedInfiniteQueryOptions<Body, number>(a, (cursor) => `${server.base}/s/feed?cursor=${cursor}`, {
      initialPageParam: 0,
      getNextPageParam: () => null,
    }) as unknown as Feed,
    {
      queryKey: ["plain-feed"],
      queryFn: async ({ pageParam }) => (await fetch(`${server.base}/p/feed?cursor=${pageParam}`)).json() as Promise<Body>,
      initialPageParam: 0,
      getNextPageParam: () => null,
    },
  ];
  function Shown({ which }: { which: 0 | 1 }) {
    const q = useSuspenseInfiniteQuery(feeds[which]);
    return <span data-testid={`side${which}`}>{q.data.pages.map((page) => `${unprefixed(page.path)}:${page.n}`).join()}</span>;
  }
  renderBothWays(a, (w) => (
    <>
      <PrefetchFeed options={feeds[w]} />
      <Shown which={w} />
    </>
  ));
  await both(["side0", "side1"], "/feed?cursor=0:1");
  await pause(50); // a second request would have left by now
  expect(sent()).toEqual([1, 1]);
});

function PrefetchFeed({ options }: { options: Feed }) {
  usePrefetchInfiniteQuery(options);
  return null;
}

const post = (path: string) => async (name: string) => {
  const res = await fetch(`${server.base}/p${path}?name=${name}`, { method: "POST" });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as Body;
};

/** A pane per side whose useMutation gets only its key (and a `scope` of its side), calling `mutate` with each name in turn. */
function mutationPanes(client: QueryClient, names: string[], scope?: { id: string }) {
  const [a] = twoTabs();
  const settled: string[][] = [[], []];
  const shared = sharedMutationFn<string, Body>(a, (name) => ({ url: `${server.base}/s/items?name=${name}`, method: "POST" }));
  client.setMutationDefaults(["add", 0], { mutationFn: shared });
  client.setMutationDefaults(["add", 1], { mutationFn: post("/items") });
  function Pane({ which }: { which: 0 | 1 }) {
    const m = useMutation<Body, Error, string>({
      mutationKey: ["add", which],
      ...(scope && { scope: { id: `${scope.id} ${which}` } }),
      onSettled: (data, error, name) => void settled[which]!.push(`${name}:${data ? unprefixed(data.path) : error?.message}`),
    });
    return <button onClick={() => names.forEach((name) => m.mutate(name))}>{`add ${which}`}</button>;
  }
  render(
    app(
      a,
      <>
        <Pane which={0} />
        <Pane which={1} />
      </>,
      client,
    ),
  );
  const add = () => act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`add ${w}`))));
  return { settled, add };
}

it("setMutationDefaults gives a useMutation named by its key its mutationFn: a call is sent once and settles alike", async () => {
  const m = mutationPanes(new QueryClient(), ["one"]);
  await m.add();
  await waitFor(() => expect(m.settled).toEqual([["one:/items?name=one"], ["one:/items?name=one"]]));
  expect(sent()).toEqual([1, 1]);
});

it("two calls in one mutation scope run one after the other: the second is sent only once the first settled", async () => {
  server.held = [];
  const m = mutationPanes(new QueryClient(), ["first", "second"], { id: "serial" });
  await m.add();
  await waitFor(() => expect(server.held).toHaveLength(2));
  await pause(50); // a second call would have left by now
  expect(server.seen.map(unprefixed).sort()).toEqual(["/items?name=first", "/items?name=first"]);
  await act(() => server.held!.splice(0).forEach((answer) => answer()));
  await waitFor(() => expect(server.held).toHaveLength(2));
  server.held!.splice(0).forEach((answer) => answer());
  server.held = null;
  const order = ["first:/items?name=first", "second:/items?name=second"];
  await waitFor(() => expect(m.settled).toEqual([order, order]));
  expect(sent()).toEqual([2, 2]);
});

it("two equal calls in one mutation scope are two requests, one after the other (the second no longer joins the first)", async () => {
  server.held = [];
  const m = mutationPanes(new QueryClient(), ["same", "same"], { id: "serial" });
  await m.add();
  await waitFor(() => expect(server.held).toHaveLength(2));
  await pause(50); // a second call would have left by now
  await act(() => server.held!.splice(0).forEach((answer) => answer()));
  await waitFor(() => expect(server.held).toHaveLength(2));
  server.held!.splice(0).forEach((answer) => answer());
  server.held = null;
  const order = ["same:/items?name=same", "same:/items?name=same"];
  await waitFor(() => expect(m.settled).toEqual([order, order]));
  expect(sent()).toEqual([2, 2]);
});

it("two calls made offline in one mutation scope: once online, sent one after the other, each settling with its own answer", async () => {
  const m = mutationPanes(new QueryClient(), ["first", "second"], { id: "serial" });
  act(() => onlineManager.setOnline(false));
  await m.add();
  await pause(50);
  expect(server.seen).toEqual([]);
  server.held = [];
  act(() => onlineManager.setOnline(true));
  await waitFor(() => expect(server.held).toHaveLength(2));
  await pause(50); // a second call would have left by now
  expect(server.seen.map(unprefixed).sort()).toEqual(["/items?name=first", "/items?name=first"]);
  await act(() => server.held!.splice(0).forEach((answer) => answer()));
  await waitFor(() => expect(server.held).toHaveLength(2));
  server.held!.splice(0).forEach((answer) => answer());
  server.held = null;
  const order = ["first:/items?name=first", "second:/items?name=second"];
  await waitFor(() => expect(m.settled).toEqual([order, order]));
  expect(sent()).toEqual([2, 2]);
});
