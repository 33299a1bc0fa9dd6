import type { Preview } from "@storybook/react-vite";
import { setupWorker, type SetupWorker } from "msw/browser";
import { createPreviewAnnotations } from "msw-storybook-addon/preview";
import { withDescription } from "../stories/support/story-description.tsx";

/**
 * Mock Service Worker, started once per page and given to every story as `msw` (handlers reset
 * when the story goes). Not the addon's default setup: it starts a worker for each story that finds
 * none started yet, and a docs page mounts every story of a file at once — each started its own, and
 * every request then reached each worker's handlers (the story's host counted it several times).
 */
let worker: Promise<SetupWorker> | undefined;
const msw = createPreviewAnnotations(
  () =>
    (worker ??= (async () => {
      const started = setupWorker();
      await started.start({ quiet: true, onUnhandledRequest: "bypass" });
      return started;
    })()),
);

const preview: Preview = {
  beforeEach: msw.beforeEach,
  decorators: [withDescription],
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
