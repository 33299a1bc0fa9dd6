// @vitest-environment jsdom
/**
 * An invalidation is not undone by a result whose request was sent in its own millisecond: that
 * request may have read the server before the mutation the invalidation was for (dates are whole
 * ms, so a tie tells nothing of the order). Before, a result dated in the invalidation's ms counted
 * as sent after it: tab A's list, invalidated after a mutation, took tab B's answer as fresh and its
 * next focus refetched nothing, showing the list from before the mutation for the staleTime.
 * Deterministic: Date.now returns one ms from B's request until A's invalidation.
 */
import { focusManager } from "@tanstack/react-query";
import { act, cleanup, waitFor } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { pause, PREFIX, text, twoPanesShowingOne } from "../harness/two-panes.tsx";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  focusManager.setFocused(undefined);
});

it("tab A invalidates (refetchType 'none') in the ms tab B's request was sent; B's answer reaches A, which stays stale and refetches on its next focus", async () => {
  const { c, clientA, clientB } = await twoPanesShowingOne();
  const ms = vi.spyOn(Date, "now").mockReturnValue(Date.now());
  void clientB.refetchQueries({ queryKey: PREFIX });
  await waitFor(() => expect(c.host.calls).toHaveLength(2));
  // A mutation in A changed the server in that same ms, perhaps after B's request read it.
  await act(() => clientA.invalidateQueries({ queryKey: PREFIX, refetchType: "none" }));
  ms.mockRestore();
  const queryA = clientA.getQueryCache().findAll({ queryKey: PREFIX })[0]!;
  c.host.calls[1]!.respond(200, { n: 2 });
  await waitFor(() => expect(text("b")).toBe("2"));
  await pause(20);
  expect(queryA.isStale()).toBe(true);
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  await act(async () => {
    focusManager.setFocused(false);
    focusManager.setFocused(true);
  });
  await pause(30);
  expect(c.host.calls).toHaveLength(3);
});
