// @vitest-environment jsdom
/**
 * A claim under the inspected replica's own id that its store did not make (a forged one, or one
 * left by an earlier run under a fixed replicaId) is disowned at once. Its holder read
 * "observer · other device": a device that does not exist. It now says whose id it is and that this
 * tab did not make it.
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

it("a disowned claim's holder is this tab's id, not made by this tab, never 'other device'", async () => {
  const doc = new Y.Doc();
  doc.transact(() => {
    const claim = { replicaId: "observer", nonce: "forged", rev: 1, leaseMs: 60_000, at: 1, label: "GET https://x.test/a" };
    const lane = new Y.Array<unknown>();
    lane.push([{ t: TABLES.claims, k: "d".repeat(64), v: claim, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  const store = createSharedFetchStore({ doc, replicaId: "observer", fetch: () => Promise.reject(new Error("no request expected")) });
  render(<SharedFetchDevtoolsPanel store={store} />);
  await act(async () => vi.advanceTimersByTimeAsync(10));
  expect(screen.getByTestId("claim-state").dataset.reason).toBe("disowned");
  const holder = screen.getByTestId("holder").textContent ?? "";
  expect(holder).toBe("observer · my id, not made by this tab (an earlier run's, or forged)");
  expect(holder).not.toContain("other device");
  store.destroy();
});
