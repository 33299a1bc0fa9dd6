import { within } from "storybook/test";

/**
 * The canvas and the two panes of a scenario. Generous waits: a cold or busy test browser can take
 * seconds to render the first frame.
 */
export async function findPanes(canvasElement: HTMLElement) {
  const canvas = within(canvasElement);
  const paneA = await canvas.findByRole("region", { name: "Replica A" }, { timeout: 15_000 });
  const paneB = await canvas.findByRole("region", { name: "Replica B" }, { timeout: 15_000 });
  return { canvas, paneA, paneB };
}

/** The holders a pane has shown, in order, without the "none" between them (data-claims-seen). */
export function held(pane: HTMLElement): string[] {
  return (pane.dataset.claimsSeen ?? "").split(" > ").filter((c) => c !== "none");
}
