import type { Preview } from "@storybook/react-vite";

const preview: Preview = {
  // A docs page per scenario file: each story's description (the invariant it shows) and the controls' descriptions.
  tags: ["autodocs"],
  parameters: {
    layout: "padded",
    controls: { expanded: true },
    // A newcomer lands on "How shared-fetch works"; the scenarios follow in the order they build on each other.
    options: {
      storySort: {
        order: [
          "Introduction",
          "Scenarios",
          ["Two replicas", "Failures", "Leases", "Outcomes", "Freshness", "Programs", "Real tabs"],
          "Devtools",
        ],
      },
    },
  },
};

export default preview;
