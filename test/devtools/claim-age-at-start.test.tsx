// @vitest-environment jsdom
/**
 * A claim that already stood when the panel opened showed no age at all ("claimed … ago" only for
 * claims seen made), so a claim stuck for an hour looked like one made a moment ago. It now shows
 * its age measured from the panel's first sight of it, as "at least" (≥), and its title says so.
 * The panel's clock only (invariant 3: a claim's own `at` is its writer's clock).
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

function storeWithPeerClaim() {
  const doc = new Y.Doc();
  // The writer's clock is a day behind: never read for the age.
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    const claim = { replicaId: "peer", nonce: "n1", rev: 1, leaseMs: 60_000, at: 1, label: "GET https://x.test/a" };
    lane.push([{ t: TABLES.claims, k: "c".repeat(64), v: claim, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  return createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
}

describe("devtools keys: a claim standing when the panel started has an age from first sight (invariant 3)", () => {
  it("the model carries when it was first seen and that it stood at the start", () => {
    const store = storeWithPeerClaim();
    const model = createDevtoolsModel(store, { minNotifyIntervalMs: 0 });
    expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ seenAt: 1_000_000, seenAtStart: true });
    model.destroy();
    store.destroy();
  });

  it("the row reads 'claimed ≥2.0 s ago' two seconds on, and its title says it is measured from the panel's start", async () => {
    const store = storeWithPeerClaim();
    render(<SharedFetchDevtoolsPanel store={store} />);
    await act(async () => vi.advanceTimersByTimeAsync(2_000));
    const age = screen.getByTestId("claim-age");
    expect(age.textContent?.trim()).toBe("claimed ≥2.0 s ago");
    expect(age.title).toBe("it stood when this panel started: measured from then, on this panel's clock (it may be older)");
    store.destroy();
  });
});
