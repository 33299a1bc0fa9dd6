// @vitest-environment jsdom
/**
 * More of what a TanStack Query user sets every day, on sharedQueryOptions / sharedMutationFn
 * beside a plain query or mutation function over fetch, against a real HTTP server on 127.0.0.1
 * that answers a path's status (`/…/404` a 404, `/…/500` a 500): each renders the same states.
 */
import { focusManager, MutationCache, QueryCache, QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SharedFetchError, sharedMutationFn, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { Boundary } from "../harness/boundary.tsx";
import { app } from "../harness/render-app.tsx";
import { sideBySideServerForFile, text, twoTabs } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => void focusManager.setFocused(undefined));

/** The status a path asks for (its last segment, when a number), else 200 from the harness's server. */
const statusOf = (path: string) => Number(path.split("/").at(-1)) || 0;

/** A plain query function as an app writes it: an HTTP failure thrown as a SharedFetchError (same type both ways). */
const plainGet = (path: string) => async () => {
  const res = await fetch(`${server.base}/p${path}`);
  if (!res.ok) throw new SharedFetchError({ message: `HTTP ${res.status}`, status: res.status });
  return res.json();
};

/** Both sides' options for `path` with the same `options`. */
function both(store: SharedFetchStoreWithExtras, path: string, options: object) {
  return [
    sharedQueryOptions(store, `${server.base}/s${path}`, options),
    { queryKey: ["plain", path], queryFn: plainGet(path), ...options },
  ] as const;
}

describe("throwOnError as a function", () => {
  it("(error) => error.status >= 500: a 500 reaches the error boundary and a 404 stays in the pane, both ways", async () => {
    const [a] = twoTabs();
    server.statusOf = statusOf;
    const throwOnError = (error: SharedFetchError) => (error.status ?? 0) >= 500;
    function Pane({ which, path }: { which: 0 | 1; path: string }) {
      const q = useQuery({ ...(both(a, path, { retry: false })[which] as object), throwOnError } as never);
      const { status, error } = q as { status: string; error: SharedFetchError | null };
      return <span data-testid={`${which}${path}`}>{`${status} ${error?.status ?? "-"}`}</span>;
    }
    vi.spyOn(console, "error").mockImplementation(() => {});
    const pane = (which: 0 | 1, path: string) => (
      <Boundary show={(error) => <span data-testid={`${which}${path}`}>{`caught ${(error as SharedFetchError).status}`}</span>}>
        <Pane which={which} path={path} />
      </Boundary>
    );
    render(app(a, <>{[pane(0, "/t/404"), pane(1, "/t/404"), pane(0, "/t/500"), pane(1, "/t/500")]}</>));
    await waitFor(() =>
      expect(["0/t/404", "1/t/404", "0/t/500", "1/t/500"].map(text)).toEqual(["error 404", "error 404", "caught 500", "caught 500"]),
    );
  });
});

describe("QueryCache and MutationCache callbacks", () => {
  it("a query retried in the claim: onError and onSettled once, with the error after the last attempt, as with plain useQuery's own retries", async () => {
    const [a] = twoTabs();
    server.statusOf = statusOf;
    const seen: string[][] = [[], []];
    const queryCache = new QueryCache({
      onError: (error, query) => seen[query.meta!.which as number]!.push(`error ${(error as SharedFetchError).status}`),
      onSuccess: (_d, query) => seen[query.meta!.which as number]!.push("success"),
      onSettled: (_d, _e, query) => seen[query.meta!.which as number]!.push("settled"),
    });
    function Pane({ which }: { which: 0 | 1 }) {
      return (
        <span data-testid={`q${which}`}>
          {useQuery(both(a, "/c/503", { retry: 2, retryDelay: 1, meta: { which } })[which] as never).status}
        </span>
      );
    }
    render(
      app(
        a,
        <>
          <Pane which={0} />
          <Pane which={1} />
        </>,
        new QueryClient({ queryCache }),
      ),
    );
    await waitFor(() => expect([text("q0"), text("q1")]).toEqual(["error", "error"]));
    expect(seen).toEqual([
      ["error 503", "settled"],
      ["error 503", "settled"],
    ]);
    expect(["/s/c/503", "/p/c/503"].map((p) => server.seen.filter((s) => s === p).length)).toEqual([3, 3]);
  });

  it("a mutation retried in the claim: the MutationCache's onError and onSettled once each, as useMutation's own retries; onSuccess once", async () => {
    const [a] = twoTabs();
    server.statusOf = statusOf;
    const seen: Record<string, string[]> = { shared: [], plain: [] };
    const mutationCache = new MutationCache({
      onError: (error, _v, _c, m) => seen[m.options.mutationKey![0] as string]!.push(`error ${(error as SharedFetchError).status}`),
      onSuccess: (_d, _v, _c, m) => seen[m.options.mutationKey![0] as string]!.push("success"),
      onSettled: (_d, _e, _v, _c, m) => seen[m.options.mutationKey![0] as string]!.push("settled"),
    });
    const post = async (path: string) => {
      const res = await fetch(`${server.base}/p${path}`, { method: "POST", body: "{}" });
      if (!res.ok) throw new SharedFetchError({ message: `HTTP ${res.status}`, status: res.status });
      return res.json();
    };
    function Pane({ id }: { id: "shared" | "plain" }) {
      const retry = { retry: 2, retryDelay: 1 };
      const fn = (path: string) =>
        id === "shared" ? sharedMutationFn(a, () => ({ url: `${server.base}/s${path}`, method: "POST", body: "{}" }), retry)() : post(path);
      const m = useMutation({ mutationKey: [id], mutationFn: fn, ...(id === "plain" ? retry : {}) });
      return (
        <>
          <span data-testid={id}>{m.status}</span>
          <button onClick={() => m.mutate("/m/500")}>{`fail ${id}`}</button>
          <button onClick={() => m.mutate("/m")}>{`ok ${id}`}</button>
        </>
      );
    }
    render(
      app(
        a,
        <>
          <Pane id="shared" />
          <Pane id="plain" />
        </>,
        new QueryClient({ mutationCache }),
      ),
    );
    await act(() => ["shared", "plain"].forEach((id) => fireEvent.click(screen.getByText(`fail ${id}`))));
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["error", "error"]));
    await act(() => ["shared", "plain"].forEach((id) => fireEvent.click(screen.getByText(`ok ${id}`))));
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["success", "success"]));
    expect(seen.shared).toEqual(["error 500", "settled", "success", "settled"]);
    expect(seen).toEqual({ shared: seen.plain, plain: seen.plain });
  });
});

describe("cancelQueries, removeQueries, structuralSharing", () => {
  it("cancelQueries({ revert: false }) on a first load: the same state as plain useQuery at once", async () => {
    const [a] = twoTabs();
    server.held = [];
    const states: string[][] = [[], []];
    function Pane({ which }: { which: 0 | 1 }) {
      const q = useQuery(both(a, "/cancel", { retry: false })[which] as never);
      const s = `${q.status} ${q.fetchStatus} ${(q.error as Error | null)?.constructor.name ?? "-"}`;
      if (states[which]!.at(-1) !== s) states[which]!.push(s);
      return null;
    }
    let client!: QueryClient;
    function Client() {
      client = useQueryClient();
      return null;
    }
    render(
      app(
        a,
        <>
          <Client />
          <Pane which={0} />
          <Pane which={1} />
        </>,
      ),
    );
    await waitFor(() => expect(server.held).toHaveLength(2));
    await act(() => client.cancelQueries({}, { revert: false }));
    await waitFor(() => expect(states[1]!.at(-1)).toBe("error idle CancelledError"));
    expect(states[0]).toEqual(states[1]);
    act(() => server.held!.splice(0).forEach((answer) => answer()));
  });

  // README ("After removeQueries, queryClient.clear() or a gcTime run out"): by design, this tab's
  // cache is emptied, not the shared record, which the pane's next render shows at once.
  it("removeQueries while mounted, then a render: the recorded result shows at once and, stale, is refetched (plain useQuery loads anew)", async () => {
    const [a] = twoTabs();
    const states: string[][] = [[], []];
    let client!: QueryClient;
    let bump!: () => void;
    function Pane({ which }: { which: 0 | 1 }) {
      const q = useQuery(both(a, "/remove", { staleTime: 0 })[which] as never);
      const s = `${q.status} ${q.fetchStatus} ${(q.data as { n?: number } | undefined)?.n ?? "-"}`;
      if (states[which]!.at(-1) !== s) states[which]!.push(s);
      return null;
    }
    function Panes() {
      client = useQueryClient();
      const [n, setN] = useState(0);
      bump = () => setN(n + 1);
      return (
        <>
          <Pane which={0} />
          <Pane which={1} />
        </>
      );
    }
    render(app(a, <Panes />));
    await waitFor(() => expect(states.map((s) => s.at(-1))).toEqual(["success idle 1", "success idle 1"]));
    act(() => client.removeQueries());
    act(() => bump());
    await waitFor(() => expect(states.map((s) => s.at(-1))).toEqual(["success idle 2", "success idle 2"]));
    expect(states).toEqual([
      ["pending fetching -", "success idle 1", "success fetching 1", "success idle 2"],
      ["pending fetching -", "success idle 1", "pending fetching -", "success idle 2"],
    ]);
    expect(server.seen.filter((p) => p.startsWith("/s")).length).toBe(2);
  });

  it("structuralSharing: false: a refetch with the same answer gives a new data object, as with plain useQuery; true keeps it", async () => {
    const [a] = twoTabs();
    server.statusOf = () => 0;
    server.same = true;
    const seen: unknown[][] = [[], [], [], []];
    let client!: QueryClient;
    function Pane({ which, sharing }: { which: 0 | 1; sharing: boolean }) {
      client = useQueryClient();
      const q = useQuery(both(a, `/sharing-${sharing}`, { structuralSharing: sharing })[which] as never);
      const log = seen[which + (sharing ? 2 : 0)]!;
      if (q.data !== undefined && log.at(-1) !== q.data) log.push(q.data);
      return null;
    }
    render(
      app(
        a,
        <>{[false, true].map((sharing) => [0, 1].map((w) => <Pane key={`${sharing}${w}`} which={w as 0 | 1} sharing={sharing} />))}</>,
      ),
    );
    await waitFor(() => expect(seen.map((s) => s.length)).toEqual([1, 1, 1, 1]));
    await act(() => client.refetchQueries());
    await waitFor(() => expect(seen.map((s) => s.length)).toEqual([2, 2, 1, 1]));
  });
});

// README ("Retries run inside the claim"): by design, the claimant's retries go on in a hidden tab,
// which still serves the tabs and devices waiting on its claim; TanStack's retryer pauses its own.
describe("retries in a tab that loses focus", () => {
  it("a query's retries go on in the claim where plain useQuery's pause until the tab is focused again", async () => {
    const [a] = twoTabs();
    server.statusOf = statusOf;
    const blurAtFirstRetry = (n: number) => (n === 0 && focusManager.setFocused(false), 5);
    const shown: string[] = ["", ""];
    function Pane({ which }: { which: 0 | 1 }) {
      const q = useQuery(both(a, "/focus/503", { retry: 2, retryDelay: blurAtFirstRetry, refetchOnWindowFocus: false })[which] as never);
      shown[which] = `${q.status} ${q.fetchStatus}`;
      return null;
    }
    render(
      app(
        a,
        <>
          <Pane which={0} />
          <Pane which={1} />
        </>,
      ),
    );
    const sent = () => ["/s/focus/503", "/p/focus/503"].map((p) => server.seen.filter((s) => s === p).length);
    await waitFor(() => expect(shown).toEqual(["error idle", "pending paused"]));
    expect(sent()).toEqual([3, 1]);
    act(() => focusManager.setFocused(true));
    await waitFor(() => expect(shown).toEqual(["error idle", "error idle"]));
    expect(sent()).toEqual([3, 3]);
  });
});
