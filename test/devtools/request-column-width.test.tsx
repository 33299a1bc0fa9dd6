// @vitest-environment jsdom
/**
 * The Keys list's request column keeps a floor width: its URL wraps anywhere (a long one must not
 * widen the panel), so in an 800 px panel the other columns squeezed it to ~80 px and a URL broke
 * over three or four lines ("https://api.exam / ple.test/items/9 / 89"). Measured in chromium at
 * 800 px: 12rem holds "GET https://api.example.test/items/989" on two lines, the table no wider
 * than the panel.
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe("Keys list: the request column", () => {
  it("has a minimum width, so a URL that wraps anywhere is not squeezed to a few characters a line", async () => {
    const doc = new Y.Doc();
    doc.transact(() => {
      const claim = { replicaId: "peer", nonce: "n", rev: 1, leaseMs: 60_000, at: 1, label: "GET https://api.example.test/items/989" };
      const lane = new Y.Array<unknown>();
      lane.push([{ t: TABLES.claims, k: "a".repeat(64), v: claim, s: 1 }]);
      doc.getArray<unknown>(ROOT).push([lane]);
    });
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
    render(<SharedFetchDevtoolsPanel store={store} />);
    await act(async () => vi.advanceTimersByTimeAsync(10));
    const header = screen.getByRole("rowheader");
    expect(header.textContent).toBe("GET https://api.example.test/items/989");
    expect(header.style.overflowWrap).toBe("anywhere");
    expect(header.style.minWidth).toBe("12rem");
    store.destroy();
  });
});
