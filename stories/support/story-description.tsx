import { Markdown } from "@storybook/addon-docs/blocks";
import type { Decorator } from "@storybook/react-vite";
import type { CSSProperties } from "react";

const style: CSSProperties = {
  fontFamily: "system-ui, sans-serif",
  fontSize: 14,
  lineHeight: 1.4,
  color: "#37404a",
  maxWidth: "72rem",
  margin: "0 0 1rem",
  paddingBottom: "0.25rem",
  borderBottom: "1px solid #e3e6ea",
};

const block: CSSProperties = { margin: "0 0 0.5em" };

/**
 * Plain elements: the docs page's own (code blocks, in-page anchors, headings) are styled from
 * Storybook's docs theme and route links through the docs context, neither of which a story's
 * canvas has.
 */
const overrides = {
  code: "code",
  a: "a",
  p: { component: "p", props: { style: block } },
  ul: { component: "ul", props: { style: { ...block, paddingLeft: "1.5em" } } },
  ol: { component: "ol", props: { style: { ...block, paddingLeft: "1.5em" } } },
} as const;

/**
 * The description as the docs page renders it, markdown and all (Storybook's own renderer): as
 * plain text, its emphasis, lists and links read as asterisks, dashes and brackets.
 */
function Described({ text }: { text: string }) {
  return (
    <Markdown style={style} data-testid="story-description" options={{ forceWrapper: true, wrapper: "div", overrides }}>
      {text}
    </Markdown>
  );
}

/**
 * A story opened on its own shows its description above the scenario: a newcomer clicking a
 * story in the sidebar otherwise lands on panes and buttons with nothing saying what happens or
 * what to watch. Docs pages already print the description above each story, so not there.
 */
export const withDescription: Decorator = (Story, { parameters, viewMode }) => {
  const text: unknown = (parameters.docs as { description?: { story?: unknown } } | undefined)?.description?.story;
  if (viewMode === "docs" || typeof text !== "string") return <Story />;
  return (
    <>
      <Described text={text} />
      <Story />
    </>
  );
};
