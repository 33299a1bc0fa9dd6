// @vitest-environment jsdom
/**
 * A foreign claim whose claimant went silent (a crash on another device, a frozen laptop) changes
 * nothing in the doc until its lease runs out, so the panel inspects nothing new: the row's live
 * countdown ran ("stale in 58.0 s") while its silence stayed at what the last inspection measured
 * ("silent 0 ms"), as if the claimant had just been heard from. The silence now runs with the
 * countdown, on the same clock (invariant 3b: silence as this replica saw it).
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

function storeWithSilentPeerClaim() {
  const doc = new Y.Doc();
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    const claim = { replicaId: "peer", nonce: "n1", rev: 1, leaseMs: 60_000, at: 1, label: "GET https://x.test/a" };
    lane.push([{ t: TABLES.claims, k: "c".repeat(64), v: claim, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  return createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
}

it("a silent claimant's row reads its silence growing as its countdown runs, with no doc change", async () => {
  const store = storeWithSilentPeerClaim();
  render(<SharedFetchDevtoolsPanel store={store} />);
  await act(async () => vi.advanceTimersByTimeAsync(2_000));
  const state = screen.getByTestId("claim-state").textContent ?? "";
  expect(state).toContain("stale in 58.0 s");
  expect(state).toContain("silent 2.0 s");
  store.destroy();
});

it("the last view of a destroyed store is judged no further: neither its silence nor its countdown runs on", async () => {
  const store = storeWithSilentPeerClaim();
  render(<SharedFetchDevtoolsPanel store={store} />);
  await act(async () => vi.advanceTimersByTimeAsync(2_000));
  store.destroy();
  await act(async () => vi.advanceTimersByTimeAsync(1_000));
  const shown = screen.getByTestId("claim-state").textContent;
  await act(async () => vi.advanceTimersByTimeAsync(5_000));
  expect(screen.getByTestId("claim-state").textContent).toBe(shown);
  expect(shown).not.toContain("stale in");
  expect(shown).toMatch(/claimed ≥\d+\.\d s ago/);
});
