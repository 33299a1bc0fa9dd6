// @vitest-environment jsdom
/**
 * The hooks' `claim` carries `failed` (how many attempts of the claim failed, and the last failure,
 * as the claimant records them): a pane that reads it is rendered as it changes, as TanStack renders
 * a component for the result properties it reads (`failureCount` rising through retries). Here
 * another tab refreshes a key this tab shows, its request failing twice before it succeeds; this
 * tab's pane shows "retrying (n failed)" from its claim. Before, a claim that only counted a new
 * failure was taken for the one shown, and the pane stayed at the first count.
 */
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function Pane({ log }: { log: string[] }) {
  const q = useSharedFetch<{ n: number }>(URL_A, { staleTime: 60_000 });
  const shown = `${q.data?.n ?? "-"} ${q.claim ? `claimed, ${q.claim.failed?.n ?? 0} failed` : "unclaimed"}`;
  log.push(shown);
  return <span data-testid="pane">{shown}</span>;
}

it("another tab's claim retrying: the pane reading the claim is rendered for each failure it counts, then for the data", async () => {
  const c = cluster(2, { settleMs: 0 });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const req = { url: URL_A };
  const log: string[] = [];
  render(app(a, <Pane log={log} />));
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
  await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("1 unclaimed"));
  log.length = 0;
  void b.refetch(req, { retry: 2, retryDelay: 0 }).catch(() => {});
  for (const failures of [0, 1]) {
    await waitFor(() => expect(c.host.calls).toHaveLength(2 + failures));
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe(`1 claimed, ${failures} failed`));
    await act(async () => c.host.calls[1 + failures]!.respond(503, "busy"));
  }
  await waitFor(() => expect(c.host.calls).toHaveLength(4));
  await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("1 claimed, 2 failed"));
  await act(async () => c.host.calls[3]!.respond(200, { n: 2 }));
  await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("2 unclaimed"));
  expect(log.filter((s, i) => s !== log[i - 1])).toEqual([
    "1 claimed, 0 failed",
    "1 claimed, 1 failed",
    "1 claimed, 2 failed",
    "2 unclaimed",
  ]);
});
