// @vitest-environment jsdom
/**
 * `isFetchingAnywhere` (and `claim`, for a pane that reads it only some of the time) renders the
 * pane for work another replica starts, as TanStack renders for the result properties a component
 * reads. A pane mounted while another tab's request was in flight joins it (its own isFetching
 * true, so the claim is not read then); once that request ended, the next claim by the same tab
 * (a refresh, a poll) must still render it: before, the claim the pane never read was kept for
 * comparison, the new one looked the same (same replica, not mine, not stale), and the pane said
 * nobody was fetching for as long as the refresh ran.
 */
import { useSharedFetch } from "../../src/index.ts";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { app } from "../harness/render-app.tsx";
import { background, cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function Pane() {
  const q = useSharedFetch<{ n: number }>(URL_A, { staleTime: 60_000 });
  return (
    <span data-testid="a">
      {q.data?.n ?? q.status} {q.isFetchingAnywhere ? "busy" : "quiet"}
    </span>
  );
}

it("a pane that joined another tab's request shows that tab's next request as fetching anywhere (isFetchingAnywhere), and its end", async () => {
  const c = cluster(2, { settleMs: 0 });
  const [a, b] = c.stores;
  c.host.auto = () => undefined;
  background(b!.ensure({ url: URL_A }));
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  render(app(a!, <Pane />));
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("pending busy"));
  c.host.calls[0]!.respond(200, { n: 1 });
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("1 quiet"));
  background(b!.refetch({ url: URL_A }));
  await waitFor(() => expect(c.host.calls).toHaveLength(2));
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("1 busy"));
  c.host.calls[1]!.respond(200, { n: 2 });
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("2 quiet"));
  expect(c.host.calls).toHaveLength(2);
});
