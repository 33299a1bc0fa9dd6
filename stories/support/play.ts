import { expect, waitFor, within } from "storybook/test";

/** Generous: a cold or busy test browser can take seconds to render the first frame. */
export const WAIT = { timeout: 20_000 } as const;

/**
 * The canvas and the panes of a scenario, by name ("Replica A", "Replica B" by default).
 */
export async function findPanes(canvasElement: HTMLElement, names: string[] = ["Replica A", "Replica B"]) {
  const canvas = within(canvasElement);
  const panes: HTMLElement[] = [];
  for (const name of names) panes.push(await canvas.findByRole("region", { name }, WAIT));
  return { canvas, paneA: panes[0]!, paneB: panes[1]!, panes };
}

/** The holders a pane has shown, in order, without the "none" between them (data-claims-seen). */
export function held(pane: HTMLElement): string[] {
  return (pane.dataset.claimsSeen ?? "").split(" > ").filter((c) => c !== "none");
}

/** The narrated timeline's lines, in order. */
export function narration(canvasElement: HTMLElement): string[] {
  const list = within(canvasElement).getByTestId("narration");
  return [...list.querySelectorAll("li")].map((li) => li.textContent?.replace(/^\+\d+\.\d+ s/, "") ?? "");
}

/**
 * Every line of the narrated timeline that wraps goes on right of its time, never under it: the
 * times stay one column a reader scans (each line of an entry's text starts past its time's edge).
 */
export function expectTimesAColumn(canvasElement: HTMLElement): void {
  for (const li of within(canvasElement).getByTestId("narration").querySelectorAll("li")) {
    const at = li.firstElementChild!.getBoundingClientRect().right;
    const text = document.createRange();
    text.setStartAfter(li.firstElementChild!);
    text.setEndAfter(li.lastChild!);
    for (const line of text.getClientRects()) expect(line.left, li.textContent ?? "").toBeGreaterThanOrEqual(at - 1);
  }
}

/**
 * No line of the narrated timeline runs out of its box (a quoted query key is one long word), even
 * with the timeline at its narrowest (16rem, its column's floor).
 */
export function expectNarrationInside(canvasElement: HTMLElement): void {
  const list = within(canvasElement).getByTestId("narration");
  // Narrowed for the measure only: whoever watches the story keeps the layout it had.
  const aside = list.closest("aside")!;
  aside.style.width = "16rem";
  try {
    const right = list.getBoundingClientRect().right;
    for (const li of list.querySelectorAll("li")) {
      const text = document.createRange();
      text.selectNodeContents(li.lastElementChild!);
      for (const line of text.getClientRects()) expect(line.right, li.textContent ?? "").toBeLessThanOrEqual(right + 1);
    }
  } finally {
    aside.style.width = "";
  }
}

/** Waits for the scenario's verdict line and returns it. */
export async function verdict(canvasElement: HTMLElement, timeout = 30_000): Promise<string> {
  try {
    const el = await within(canvasElement).findByTestId("verdict", {}, { timeout });
    return el.textContent ?? "";
  } catch {
    // The timeline is the best account of where the scenario stopped.
    throw new Error(`no verdict within ${timeout} ms; what happened:\n  ${narration(canvasElement).join("\n  ")}`);
  }
}

/** No pane ever rendered "not pending, no data" (each pane remembers it: data-lied). */
export async function expectNoLies(panes: HTMLElement[]): Promise<void> {
  for (const pane of panes) await expect(pane).toHaveAttribute("data-lied", "false");
}

/** The host counter reads exactly `n`. */
export async function expectRequests(canvasElement: HTMLElement, n: number, timeout = 20_000): Promise<void> {
  const canvas = within(canvasElement);
  await waitFor(() => expect(canvas.getByTestId("host-requests")).toHaveTextContent(new RegExp(`^host requests: ${n}$`)), { timeout });
}

/** A line of the narration matches `pattern`. */
export async function expectNarrated(canvasElement: HTMLElement, pattern: RegExp): Promise<void> {
  await waitFor(() => {
    const lines = narration(canvasElement);
    if (!lines.some((line) => pattern.test(line)))
      throw new Error(`nothing narrated matches ${pattern}; what happened:\n  ${lines.join("\n  ")}`);
  }, WAIT);
}
