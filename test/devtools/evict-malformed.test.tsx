// @vitest-environment jsdom
/**
 * Invariant 14: a buggy peer's malformed result is ignored and listed, never thrown into React.
 * It still sits in the doc: on a key whose only outcome record is malformed (a peer's claim
 * stands beside it), "evict record" was disabled with nothing recorded that it could read, so the
 * panel listed the bad record under Malformed and offered no way to remove it.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
const KEY = "k".repeat(64);

describe("invariant 14: evict record on a key whose result a buggy peer wrote malformed", () => {
  it("the button is offered, removes the malformed record from the doc and says so; the Malformed tab empties", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
    onTestFinished(() => store.destroy());
    // A peer's lane: a well-formed claim, and a result whose revision no replica may accept.
    doc.transact(() => {
      const lane = new Y.Array<unknown>();
      lane.push([
        { t: TABLES.claims, k: KEY, v: { replicaId: "peer", nonce: "n1", rev: 2, leaseMs: 5000, label: "GET https://x.test/a" }, s: 1 },
        { t: TABLES.results, k: KEY, v: { rev: 1e300, data: { a: 1 } }, s: 2 },
      ]);
      doc.getArray<unknown>(ROOT).push([lane]);
    });
    expect(store.inspect().malformed.map((m) => [m.map, m.key])).toEqual([["results", KEY]]);
    render(<SharedFetchDevtoolsPanel store={store} />);
    fireEvent.click(screen.getByRole("button", { name: "Details of GET https://x.test/a" }));
    const details = screen.getByTestId("key-details");
    const evict = within(details).getByRole("button", { name: "evict record" }) as HTMLButtonElement;
    expect(evict.disabled).toBe(false);
    fireEvent.click(evict);
    expect(within(details).getByRole("status").textContent).toBe("Record evicted from the doc.");
    expect(store.inspect().malformed).toEqual([]);
    await act(async () => {});
    expect(screen.getByRole("tab", { name: /Malformed/ }).textContent).toContain("0");
    // The peer's claim is not the evict's business: it stands.
    expect(store.inspect().keys[0]!.claim).toMatchObject({ replicaId: "peer", rev: 2 });
  });
});
