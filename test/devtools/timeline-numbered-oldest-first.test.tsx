// @vitest-environment jsdom
/**
 * The Timeline tab lists newest first, and numbered 1 = latest while the scenarios' narration numbers
 * oldest first: "entry 2" named two different events. The list now counts down (a reversed <ol>
 * starting at the count), so 1 is the oldest kept entry in both, the newest on top.
 */
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);

it("the timeline is numbered oldest first: a reversed list starting at its count, the newest entry on top", async () => {
  const doc = new Y.Doc();
  const store = createSharedFetchStore({ doc });
  try {
    render(<SharedFetchDevtoolsPanel store={store} initialTab="timeline" />);
    for (const name of ["a", "b", "c"]) {
      const lane = new Y.Array<unknown>();
      const v = { rev: 1, data: { ok: true }, label: `GET https://x.test/${name}`, by: "peer" };
      lane.push([{ t: TABLES.results, k: name.padEnd(64, "0"), v, s: 1 }]);
      doc.getArray<unknown>(ROOT).push([lane]);
      await waitFor(() => expect(screen.getAllByTestId("timeline-entry").length).toBeGreaterThanOrEqual(name.charCodeAt(0) - 96));
    }
    const list = screen.getByRole("list", { name: "Timeline, newest first" }) as HTMLOListElement;
    const entries = screen.getAllByTestId("timeline-entry");
    expect(entries).toHaveLength(3);
    expect(list.reversed).toBe(true);
    expect(list.start).toBe(3);
    expect(entries[0]!.textContent).toContain("GET https://x.test/c");
  } finally {
    store.destroy();
  }
});
