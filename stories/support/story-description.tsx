import type { Decorator } from "@storybook/react-vite";
import type { CSSProperties } from "react";

const style: CSSProperties = {
  fontFamily: "system-ui, sans-serif",
  fontSize: 14,
  lineHeight: 1.4,
  color: "#37404a",
  maxWidth: "72rem",
  margin: "0 0 1rem",
  paddingBottom: "0.75rem",
  borderBottom: "1px solid #e3e6ea",
};

/** The description's `code` spans (its only markdown) as code; everything else as plain text. */
function Described({ text }: { text: string }) {
  return (
    <p style={style} data-testid="story-description">
      {text.split("`").map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}
    </p>
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
