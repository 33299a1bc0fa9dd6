// @vitest-environment jsdom
/**
 * A story opened on its own says what it shows: its description (the invariant, what happens,
 * what to watch) stands above the scenario. Before, only the docs pages printed it, and a story
 * clicked in the sidebar opened on panes and buttons with nothing saying what they were for. Its
 * markdown is rendered as the docs page renders it: shown as text, *Refetch* kept its asterisks.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StoryContext } from "@storybook/react-vite";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { withDescription } from "../../stories/support/story-description.tsx";

afterEach(cleanup);

const text = "Invariant 8. The host never answers: watch both panes stay `pending`.";
const story = () => <p>the scenario</p>;

function shown(viewMode: string, parameters: Record<string, unknown>) {
  const Decorated = () => withDescription(story, { viewMode, parameters } as unknown as StoryContext);
  render(<Decorated />);
}

describe("a story's description above its canvas", () => {
  it("a story opened alone shows its description, its `code` spans as code, then the scenario", () => {
    shown("story", { docs: { description: { story: text } } });
    const description = screen.getByTestId("story-description");
    expect(description.textContent).toBe(text.replaceAll("`", ""));
    expect(description.querySelector("code")?.textContent).toBe("pending");
    expect(description.compareDocumentPosition(screen.getByText("the scenario"))).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
  });

  it("its other markdown reads as on the docs page: emphasis, strong, lists and links are rendered, not shown as marks", () => {
    const marked =
      "Invariant 7. In A's devtools: *Refetch* sends **one** request.\n\n- A shows it\n- B shows it\n\nSee [the README](https://example.test/readme).";
    shown("story", { docs: { description: { story: marked } } });
    const description = screen.getByTestId("story-description");
    expect(description.querySelector("em")?.textContent).toBe("Refetch");
    expect(description.querySelector("strong")?.textContent).toBe("one");
    expect([...description.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["A shows it", "B shows it"]);
    expect(description.querySelector("a")?.getAttribute("href")).toBe("https://example.test/readme");
    expect(description.textContent).not.toMatch(/[*[\]]|^- /m);
  });

  it("a docs page, which prints the description itself, and a story without one show the scenario alone", () => {
    shown("docs", { docs: { description: { story: text } } });
    shown("story", {});
    expect(screen.queryByTestId("story-description")).toBeNull();
    expect(screen.getAllByText("the scenario")).toHaveLength(2);
  });

  it("every story gets it: the decorator is the preview's", () => {
    // Read as text: the preview starts Mock Service Worker, which needs a browser.
    const preview = readFileSync(join(import.meta.dirname, "../../.storybook/preview.ts"), "utf8");
    expect(preview).toMatch(/^\s*decorators:\s*\[withDescription\]/m);
  });
});
