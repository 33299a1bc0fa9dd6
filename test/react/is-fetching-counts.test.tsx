// @vitest-environment jsdom
/**
 * README ("What differs"): useIsFetching counts this tab's own work, as TanStack counts one
 * client's: a query whose function waits here on another replica's request counts; another
 * replica's request for a query this tab shows, fresh, and did not ask for counts nowhere here
 * (isFetchingAnywhere says it).
 */
import { useIsFetching } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { useSharedFetch } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { background, cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function Pane() {
  const q = useSharedFetch<{ n: number }>(URL_A, { staleTime: 60_000 });
  const fetching = useIsFetching();
  return <span data-testid="a">{`${q.data?.n ?? q.status} ${fetching} ${q.isFetchingAnywhere}`}</span>;
}

it("useIsFetching is 1 while this tab's query waits on another tab's request, 0 while another tab refreshes what this tab shows fresh", async () => {
  const c = cluster(2, { settleMs: 0 });
  const [a, b] = c.stores;
  c.host.auto = () => undefined;
  background(b!.ensure({ url: URL_A }));
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  render(app(a!, <Pane />));
  const text = () => screen.getByTestId("a").textContent;
  await waitFor(() => expect(text()).toBe("pending 1 true"));
  c.host.calls[0]!.respond(200, { n: 1 });
  await waitFor(() => expect(text()).toBe("1 0 false"));
  background(b!.refetch({ url: URL_A }));
  await waitFor(() => expect(text()).toBe("1 0 true"));
  c.host.calls[1]!.respond(200, { n: 2 });
  await waitFor(() => expect(text()).toBe("2 0 false"));
  expect(c.host.calls).toHaveLength(2);
});
