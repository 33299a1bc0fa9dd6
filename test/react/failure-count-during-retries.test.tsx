// @vitest-environment jsdom
/**
 * Retries run inside the claim (README, "Coming from TanStack Query"), yet the tab whose claim
 * retries shows each failure as TanStack's retryer shows it: `failureCount` and `failureReason`
 * rise through the retries, then the final error counts the last attempt, beside a plain query
 * function over fetch against a real HTTP server on 127.0.0.1. Before, they stayed 0 through every
 * retry and read 1 at the end, so a "retrying (2 of 3)…" line never showed. A tab or a client that
 * joined the claim shows the same (test/react/joined-failure-count.test.tsx).
 */
import { QueryClient, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SharedFetchError, sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { sideBySide, sideBySideServerForFile, twoTabs, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

type Log = (line: string) => void;
const line = (q: { status: string; fetchStatus: string; failureCount: number; failureReason: unknown }) =>
  `${q.status} ${q.fetchStatus} ${q.failureCount} ${q.failureReason instanceof Error ? "reason" : "-"}`;

/** Each pane's distinct states, in order: [shared in tab a, plain in tab a, shared in tab b]. */
function logs3() {
  const logs: string[][] = [[], [], []];
  const log =
    (w: number): Log =>
    (s) =>
      void (logs[w]!.at(-1) !== s && logs[w]!.push(s));
  return { logs, log };
}

describe("failureCount and failureReason through the claim's retries, as TanStack's retryer shows them", () => {
  it("useQuery with retry: 2: the claimant tab and the tab that joined show 0, 1, 2, then the error with 3, as plain useQuery; the host sees one sequence", async () => {
    const [a, b] = twoTabs();
    server.failing = true;
    const { logs, log } = logs3();
    function Pane({ store, which, log }: { store: SharedFetchStoreWithExtras; which: 0 | 1; log: Log }) {
      const q = useQuery(sideBySide(server, store, "/r", { retry: 2, retryDelay: 20 })[which]);
      log(line(q));
      return null;
    }
    render(
      <>
        {app(
          a,
          <>
            <Pane store={a} which={0} log={log(0)} />
            <Pane store={a} which={1} log={log(1)} />
          </>,
        )}
        {app(b, <Pane store={b} which={0} log={log(2)} />)}
      </>,
    );
    await waitFor(() => expect(logs.map((l) => l.at(-1)!.split(" ")[0])).toEqual(["error", "error", "error"]));
    expect(logs[1]).toEqual(["pending fetching 0 -", "pending fetching 1 reason", "pending fetching 2 reason", "error idle 3 reason"]);
    expect(logs[0]).toEqual(logs[1]);
    // One sequence of attempts for both tabs; tab b joined it and shows its failures from the claim
    // (test/react/joined-failure-count.test.tsx).
    expect(server.seen.filter((p) => p === "/s/r")).toHaveLength(3);
    expect(logs[2]).toEqual(logs[1]);
  });

  it("a retry that then succeeds: failureCount back to 0 and failureReason null with the data, as plain useQuery", async () => {
    const [a] = twoTabs();
    const { logs, log } = logs3();
    // One side at a time, so that each one's second failure alone lets the host answer.
    for (const which of [0, 1] as const) {
      server.failing = true;
      function Pane() {
        const q = useQuery(sideBySide(server, a, "/ok", { retry: 3, retryDelay: 50 })[which]);
        log(which)(`${line(q)} ${q.data?.n ?? "-"}`);
        if (q.failureCount === 2) server.failing = false;
        return null;
      }
      const { unmount } = render(app(a, <Pane />));
      await waitFor(() => expect(logs[which]!.at(-1)).toBe("success idle 0 - 3"));
      unmount();
    }
    expect(logs[1]).toEqual(["pending fetching 0 - -", "pending fetching 1 reason -", "pending fetching 2 reason -", "success idle 0 - 3"]);
    expect(logs[0]).toEqual(logs[1]);
  });

  it("useInfiniteQuery with retry: 1 (each page's claim retries): 0, 1, then the error with 2, as plain useInfiniteQuery", async () => {
    const [a] = twoTabs();
    server.failing = true;
    const { logs, log } = logs3();
    const plain = async ({ pageParam }: { pageParam: number }) => {
      const res = await fetch(`${server.base}/p/feed?cursor=${pageParam}`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return (await res.json()) as Body;
    };
    const pages = { initialPageParam: 0, getNextPageParam: () => null, retry: 1, retryDelay: 20 };
    function Shared() {
      const q = useInfiniteQuery(sharedInfiniteQueryOptions(a, (c: number) => `${server.base}/s/feed?cursor=${c}`, pages));
      log(0)(line(q));
      return null;
    }
    function Plain() {
      log(1)(line(useInfiniteQuery({ queryKey: ["plain-feed"], queryFn: plain, ...pages })));
      return null;
    }
    render(
      app(
        a,
        <>
          <Shared />
          <Plain />
        </>,
      ),
    );
    await waitFor(() => expect(logs.slice(0, 2).map((l) => l.at(-1)!.split(" ")[0])).toEqual(["error", "error"]));
    expect(logs[1]).toEqual(["pending fetching 0 -", "pending fetching 1 reason", "error idle 2 reason"]);
    expect(logs[0]).toEqual(logs[1]);
  });

  it("the app's setQueryData during a retry's delay stays, and the count goes on (1, 2, 3, then 4 with the error), as plain useQuery", async () => {
    const [a] = twoTabs();
    server.failing = true;
    const { logs, log } = logs3();
    const sides = sideBySide(server, a, "/set", { retry: 3, retryDelay: 100 });
    const client = new QueryClient();
    function Pane({ which }: { which: 0 | 1 }) {
      const q = useQuery(sides[which]);
      log(which)(`${line(q)} ${q.data?.path ?? "-"}`);
      return null;
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
    await waitFor(() =>
      expect(logs.slice(0, 2).map((l) => l.at(-1))).toEqual(["pending fetching 1 reason -", "pending fetching 1 reason -"]),
    );
    act(() => sides.forEach((o) => client.setQueryData(o.queryKey, { path: "app", n: 0 })));
    await waitFor(() => expect(logs.slice(0, 2).map((l) => l.at(-1)!.split(" ")[0])).toEqual(["error", "error"]));
    expect(logs[1]).toEqual([
      "pending fetching 0 - -",
      "pending fetching 1 reason -",
      "success fetching 1 reason app",
      "success fetching 2 reason app",
      "success fetching 3 reason app",
      "error idle 4 reason app",
    ]);
    expect(logs[0]).toEqual(logs[1]);
  });

  it("two QueryClients of one tab, one key: the query whose function claimed and the one that joined both show 0, 1, 2, then 3", async () => {
    const [a] = twoTabs();
    server.failing = true;
    const { logs, log } = logs3();
    const options = sideBySide(server, a, "/two-clients", { retry: 2, retryDelay: 20 })[0];
    function Pane({ log }: { log: Log }) {
      log(line(useQuery(options)));
      return null;
    }
    render(
      <>
        {app(a, <Pane log={log(0)} />)}
        {app(a, <Pane log={log(1)} />)}
      </>,
    );
    await waitFor(() => expect(logs.slice(0, 2).map((l) => l.at(-1)!.split(" ")[0])).toEqual(["error", "error"]));
    expect(server.seen.filter((p) => p === "/s/two-clients")).toHaveLength(3);
    // Which client's query function asks first is TanStack's order; the other joins its claim.
    const counted = ["pending fetching 0 -", "pending fetching 1 reason", "pending fetching 2 reason", "error idle 3 reason"];
    expect(logs.slice(0, 2)).toEqual([counted, counted]);
  });

  it("failureReason during the retries is the SharedFetchError of the attempt that failed (its status)", async () => {
    const [a] = twoTabs();
    server.failing = true;
    const reasons: unknown[] = [];
    function Pane() {
      const q = useQuery(sideBySide(server, a, "/why", { retry: 1, retryDelay: 20 })[0]);
      if (q.fetchStatus === "fetching" && q.failureReason) reasons.push(q.failureReason);
      return <span data-testid="s">{q.status}</span>;
    }
    render(app(a, <Pane />));
    await waitFor(() => expect(document.querySelector("[data-testid=s]")!.textContent).toBe("error"));
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons[0]).toBeInstanceOf(SharedFetchError);
    expect((reasons[0] as SharedFetchError).status).toBe(500);
  });
});
