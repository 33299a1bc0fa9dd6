// @vitest-environment jsdom
/**
 * Label in name (WCAG 2.5.3), for speech-input users who say what a button shows: a key's
 * details toggle read "hide" once open while its accessible name stayed "Details of GET …", so
 * "click hide" reached nothing. Every named button of the Keys tab, its details open, shows words
 * its name contains; the toggle tells open or closed by aria-expanded (and an arrow), not by a new word.
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);

it("a key's details toggle keeps the name it shows, open or closed; aria-expanded tells which", () => {
  const doc = new Y.Doc();
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    const claim = { replicaId: "peer", nonce: "n1", rev: 1, leaseMs: 5000, label: "GET https://x.test/a" };
    lane.push([{ t: TABLES.claims, k: "k".repeat(64), v: claim, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
  render(<SharedFetchDevtoolsPanel store={store} />);
  const toggle = screen.getByRole("button", { name: "Details of GET https://x.test/a" });
  const states: [string | null, string][] = [];
  for (let i = 0; i < 2; i++) {
    fireEvent.click(toggle);
    // What a sighted user reads on each named button: its text less the decorative arrow.
    const shown = (b: HTMLElement) =>
      [...b.childNodes]
        .filter((n) => !(n instanceof HTMLElement && n.getAttribute("aria-hidden") === "true"))
        .map((n) => n.textContent)
        .join("")
        .trim()
        .toLowerCase();
    const mismatched = screen
      .getAllByRole("button")
      .filter((b) => b.hasAttribute("aria-label") && !b.getAttribute("aria-label")!.toLowerCase().includes(shown(b)));
    expect(mismatched.map((b) => `${b.getAttribute("aria-label")} shows "${shown(b)}"`)).toEqual([]);
    states.push([toggle.getAttribute("aria-expanded"), shown(toggle)]);
  }
  expect(states).toEqual([
    ["true", "details"],
    ["false", "details"],
  ]);
  store.destroy();
});
