// @vitest-environment jsdom
/**
 * README, Usage: the `Items` component as the README writes it, in two panes (two replicas). What
 * its branches promise: the pane whose replica waits on another's claim says "another tab is
 * fetching…" (invariant 8: pending is truthful, and names whose work it is), the claimant's says
 * "loading…", both list the one response, and "refresh" is disabled while any replica fetches.
 */
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { useSharedFetch } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

type Item = { id: number; name: string };

// Verbatim from the README (Usage), but for the fixed 60 s interval, which no step here reaches.
function Items() {
  const query = useSharedFetch<Item[]>("/api/items", { staleTime: 30_000, refetchInterval: 60_000 });
  if (query.isPending) return <p>{query.claim && !query.claim.mine ? "another tab is fetching…" : "loading…"}</p>;
  if (query.isError && !query.data) return <p>failed: {query.error.message}</p>;
  const items: Item[] = query.data ?? [];
  return (
    <>
      <ul>
        {items.map((item) => (
          <li key={item.id}>{item.name}</li>
        ))}
      </ul>
      <button onClick={() => void query.refetch()} disabled={query.isFetchingAnywhere}>
        refresh
      </button>
    </>
  );
}

afterEach(cleanup);

describe("README, Usage: the Items example in two replicas", () => {
  it("invariant 8: one request; the waiting pane names another tab's fetch; refresh is disabled while any replica fetches", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    render(<div data-testid="a">{app(a!, <Items />)}</div>);
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    expect(c.host.calls[0]!.url).toBe(`${location.origin}/api/items`);
    render(<div data-testid="b">{app(b!, <Items />)}</div>);
    const paneA = within(screen.getByTestId("a"));
    const paneB = within(screen.getByTestId("b"));
    await waitFor(() => expect(paneB.getByText("another tab is fetching…")).toBeTruthy());
    expect(paneA.getByText("loading…")).toBeTruthy();
    expect(c.host.calls).toHaveLength(1);

    await act(async () => c.host.calls[0]!.respond(200, [{ id: 1, name: "first" }]));
    await waitFor(() => expect(paneB.queryByText("first")).toBeTruthy());
    expect(paneA.getByText("first")).toBeTruthy();
    expect((paneA.getByText("refresh") as HTMLButtonElement).disabled).toBe(false);

    // B's refresh: a new revision, fetched once; A's button shows the work elsewhere and waits.
    await act(async () => paneB.getByText("refresh").click());
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    await waitFor(() => expect((paneA.getByText("refresh") as HTMLButtonElement).disabled).toBe(true));
    expect(paneA.getByText("first")).toBeTruthy(); // the data stays while the refetch runs
    await act(async () => c.host.calls[1]!.respond(200, [{ id: 2, name: "second" }]));
    await waitFor(() => expect(paneA.queryByText("second")).toBeTruthy());
    await waitFor(() => expect((paneA.getByText("refresh") as HTMLButtonElement).disabled).toBe(false));
    expect(paneB.getByText("second")).toBeTruthy();
    expect(c.host.calls).toHaveLength(2);
  });
});
