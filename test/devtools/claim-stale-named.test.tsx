// @vitest-environment jsdom
/**
 * A key whose claim went stale (its claimant gone or silent: nobody live works on it) read "stale"
 * in the Keys tab's Status column and status filter. A TanStack Query user reads "stale" as
 * TanStack's data staleness (older than staleTime, refetched on the next demand), here of a key
 * with no data at all. The panel now writes that status "claim stale", whose claim it is.
 */
import { act, cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

it("a key whose claim went stale reads 'claim stale' in its row and its filter, never TanStack's bare 'stale'", async () => {
  const doc = new Y.Doc();
  doc.transact(() => {
    // Another device's claim whose claimant never beats: stale one lease after the panel first saw it.
    const claim = { replicaId: "replica-r", nonce: "n1", rev: 1, leaseMs: 1_000, at: 1, label: "GET https://x.test/a" };
    const lane = new Y.Array<unknown>();
    lane.push([{ t: TABLES.claims, k: "e".repeat(64), v: claim, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  const store = createSharedFetchStore({ doc, replicaId: "observer", fetch: () => Promise.reject(new Error("no request expected")) });
  render(<SharedFetchDevtoolsPanel store={store} />);
  await act(async () => vi.advanceTimersByTimeAsync(1_500));
  const row = screen.getByTestId("key-row");
  expect(row.dataset.status).toBe("stale");
  expect(within(row).getAllByRole("cell")[1]!.textContent).toBe("claim stale");
  expect(screen.getByTestId("count-stale").textContent).toBe("claim stale 1");
  store.destroy();
});
