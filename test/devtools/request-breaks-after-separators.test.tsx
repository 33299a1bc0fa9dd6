// @vitest-environment jsdom
/**
 * The Keys list's request column breaks a URL only after its separators: in a narrow panel (B's in
 * the "Hung host" story) "GET http://localhost:6006/api/re / port" broke wherever the column's edge
 * fell, as overflow-wrap: anywhere lets it. Each "/" of the path (not those of "://"), "?", "&" and
 * "·" is followed by a <wbr>, and "?…" (the label's hidden query) stays whole.
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

/** A panel over a doc where a peer claims one key per label. */
async function panelOf(labels: string[]) {
  const doc = new Y.Doc();
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    labels.forEach((label, i) => {
      const claim = { replicaId: "peer", nonce: `n${i}`, rev: 1, leaseMs: 60_000, at: 1, label };
      lane.push([{ t: TABLES.claims, k: String(i).repeat(64), v: claim, s: 1 }]);
    });
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
  render(<SharedFetchDevtoolsPanel store={store} />);
  await act(async () => vi.advanceTimersByTimeAsync(10));
  return store;
}

describe("Keys list: the request column's line breaks", () => {
  it("are allowed after each separator of the URL only, so a narrow panel never splits a word", async () => {
    const store = await panelOf(["GET http://localhost:6006/api/report?…", "PROGRAM https://h.test/a?b=1&c=2 · x"]);
    const headers = screen.getAllByRole("rowheader").map((th) => th.innerHTML);
    expect(headers).toEqual([
      "<strong>GET </strong>http://localhost:6006/<wbr>api/<wbr>report?…",
      "<strong>PROGRAM </strong>https://h.test/<wbr>a?<wbr>b=1&amp;<wbr>c=2 ·<wbr> x",
    ]);
    store.destroy();
  });

  it("adds nothing to a URL with no separator past its origin", async () => {
    const store = await panelOf(["GET https://h.test"]);
    expect(screen.getByRole("rowheader").innerHTML).toBe("<strong>GET </strong>https://h.test");
    store.destroy();
  });
});
