// @vitest-environment jsdom
/**
 * The timeline keeps its newest 500 entries. A user who filtered it by a key (or a replica) whose
 * entries then aged out saw the select go blank: its choice was no option any more, and the list
 * said nothing had happened. The choice stays a choice, named, until the user changes it.
 */
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";
import { seedKeys } from "./seed.ts";

const FIRST = "first".padEnd(64, "0");

/** A result as a peer would write it, in a lane of its own. */
function writeResult(doc: Y.Doc, key: string, by: string): void {
  const lane = new Y.Array<unknown>();
  lane.push([{ t: TABLES.results, k: key, v: { rev: 1, data: { ok: true }, label: "GET https://first.example/a", by }, s: 1 }]);
  doc.getArray<unknown>(ROOT).push([lane]);
}

const selected = (name: RegExp) => {
  const select = screen.getByRole("combobox", { name }) as HTMLSelectElement;
  return select.selectedOptions[0]?.textContent ?? "(blank)";
};

afterEach(cleanup);

describe("the timeline's filters keep a choice whose entries aged out", () => {
  it("filtered by a key and by its writer, 500 newer entries later: both selects still show the choice", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc });
    try {
      render(<SharedFetchDevtoolsPanel store={store} initialTab="timeline" />);
      writeResult(doc, FIRST, "gone-replica");
      await waitFor(() => expect(screen.getAllByTestId("timeline-entry")).toHaveLength(1));
      fireEvent.change(screen.getByRole("combobox", { name: /Key/ }), { target: { value: FIRST } });
      fireEvent.change(screen.getByRole("combobox", { name: /Replica/ }), { target: { value: "gone-replica" } });
      expect(selected(/Key/)).toBe(`GET https://first.example/a (${FIRST.slice(0, 8)})`);
      expect(selected(/Replica/)).toBe("gone-replica");

      seedKeys(doc, 500, { errorEvery: 0 }); // 500 results: the first one's entry ages out
      await waitFor(() => expect(screen.getByRole("tab", { name: /^Timeline/ }).textContent).toBe("Timeline (500)"));

      expect(selected(/Key/)).toBe(`${FIRST} (${FIRST.slice(0, 8)})`);
      expect(selected(/Replica/)).toBe("gone-replica");
      expect(screen.getByText(/Nothing has happened since the panel started \(for this filter\)/)).toBeTruthy();
    } finally {
      store.destroy();
      doc.destroy();
    }
  });
});
