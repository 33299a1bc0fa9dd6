// @vitest-environment jsdom
/**
 * Invariant 14: a malformed record is ignored, listed, and can be removed. A key whose only record
 * is a buggy peer's malformed result (no claim beside it) had no row in the Keys tab, so the
 * "evict record" of its details was out of reach, and the Malformed tab listed it with no action:
 * nothing in the panel could take it out of the doc. It now has a row (marked malformed), and the
 * Malformed tab offers "evict" on an outcome record.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
const KEY = "m".repeat(64);

function setup() {
  const doc = new Y.Doc();
  const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
  onTestFinished(() => store.destroy());
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    lane.push([{ t: TABLES.results, k: KEY, v: { rev: "one", data: { a: 1 } }, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  expect(store.inspect().malformed.map((m) => [m.map, m.key])).toEqual([["results", KEY]]);
  expect(store.inspect().keys).toEqual([]);
  return store;
}

describe("invariant 14: a key whose only record is malformed", () => {
  it("has a row in the Keys tab, marked malformed, whose evict removes the record", async () => {
    const store = setup();
    render(<SharedFetchDevtoolsPanel store={store} />);
    const row = screen.getAllByTestId("key-row").find((r) => r.getAttribute("data-key") === KEY)!;
    expect(row.textContent).toContain("malformed");
    fireEvent.click(within(row).getByRole("button", { name: /^Details of/ }));
    const evict = within(screen.getByTestId("key-details")).getByRole("button", { name: "evict record" }) as HTMLButtonElement;
    expect(evict.disabled).toBe(false);
    fireEvent.click(evict);
    expect(store.inspect().malformed).toEqual([]);
    await act(async () => {});
    expect(screen.getByText("No keys in the doc yet.")).toBeTruthy();
  });

  it("the Malformed tab offers evict on it", async () => {
    const store = setup();
    render(<SharedFetchDevtoolsPanel store={store} initialTab="malformed" />);
    const listed = screen.getByTestId("malformed-row");
    fireEvent.click(within(listed).getByRole("button", { name: "evict" }));
    expect(store.inspect().malformed).toEqual([]);
    await act(async () => {});
    expect(screen.getByText("Every record in the doc is well-formed.")).toBeTruthy();
  });
});
