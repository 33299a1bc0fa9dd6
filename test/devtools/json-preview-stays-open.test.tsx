// @vitest-environment jsdom
/**
 * A key's JSON preview, opened in a long list: only the rows in view are rendered, so a row the
 * user scrolls past leaves the DOM. Its details stayed open when it came back, but the preview
 * inside them was closed again: the user who opened a result to compare it with another row's lost
 * it on the way.
 */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { seedKeys } from "./seed.ts";

const LABEL = "GET https://api.example.test/items/0";
const rowOf = (key: string) => screen.queryAllByTestId("key-row").find((r) => r.dataset.key === key);
afterEach(cleanup);

describe("a key's JSON preview stays open while its row scrolls out of view and back", () => {
  it("100 keys: the first key's preview, opened, is still shown after scrolling to the end and back", () => {
    const doc = new Y.Doc();
    const [key] = seedKeys(doc, 100);
    const store = createSharedFetchStore({ doc });
    try {
      render(<SharedFetchDevtoolsPanel store={store} />);
      fireEvent.click(within(rowOf(key!)!).getByRole("button", { name: `Details of ${LABEL}` }));
      fireEvent.click(screen.getByRole("button", { name: /^show JSON/ }));
      expect(screen.getByRole("region", { name: "Keys list" }).textContent).toContain('"name": "item 0"');

      const scroller = screen.getByRole("region", { name: "Keys list" });
      Object.defineProperty(scroller, "scrollTop", { value: 90 * 40, configurable: true });
      fireEvent.scroll(scroller);
      expect(rowOf(key!)).toBeUndefined();
      Object.defineProperty(scroller, "scrollTop", { value: 0, configurable: true });
      fireEvent.scroll(scroller);

      expect(rowOf(key!)).toBeDefined();
      expect(screen.getByLabelText(`Recorded JSON of ${LABEL}`).textContent).toContain('"name": "item 0"');
      expect(screen.getByRole("button", { name: "hide JSON" })).toHaveProperty("ariaExpanded", "true");
    } finally {
      store.destroy();
      doc.destroy();
    }
  });
});
