/**
 * The play function of the offline-resume scenarios (support/offline-resume.tsx), taken step by
 * step as a reader would: offline, A adds an item, the tabs of the plan reload, back online. It
 * checks what every plan must end with: one POST with one Idempotency-Key, the list refetched
 * once for all, every pane showing the new item and its mutation done.
 */
import { expect, waitFor, within } from "storybook/test";
import { afterReload, reloadLabel, type ResumePlan } from "./offline-resume.tsx";
import { expectNarrated, expectNoLies, expectRequests, findPanes, narration, verdict, WAIT } from "./play.ts";
import { shortOf } from "./replicas.ts";

type Clicks = { click(element: Element): Promise<void> };

export async function playOfflineResume(canvasElement: HTMLElement, userEvent: Clicks, url: string, plan: ResumePlan, ends: RegExp) {
  const { canvas, panes } = await findPanes(canvasElement, plan.tabs);
  const click = (name: string, scope = canvas) => userEvent.click(scope.getByRole("button", { name }));
  const answers = (pane: HTMLElement) => pane.dataset.answersSeen ?? "";
  const mutation = (pane: HTMLElement) => within(pane).getByTestId("mutation");
  await waitFor(() => expect(panes.map(answers)).toEqual(plan.tabs.map(() => "1")), WAIT);
  await expectRequests(canvasElement, 1);
  await click("Take the browser offline");
  await click("Add an item", within(panes[0]!));
  await waitFor(() => expect(mutation(panes[0]!)).toHaveTextContent(/^pending · paused$/), WAIT);
  await waitFor(() => expect(canvas.getByRole("button", { name: reloadLabel(plan) })).toBeEnabled(), WAIT);
  await click(reloadLabel(plan));
  const names = afterReload(plan);
  const { panes: shown } = await findPanes(canvasElement, names);
  // Each new QueryClient restored the paused mutation and the list from the browser's storage; an open A kept its own.
  for (const pane of shown) {
    await waitFor(() => expect(mutation(pane)).toHaveTextContent(/^pending · paused$/), WAIT);
    await expect(within(pane).getByTestId("items")).toHaveTextContent(/^item 1$/);
  }
  await expectRequests(canvasElement, 1);
  await click("Bring the browser back online");
  await expect(await verdict(canvasElement)).toMatch(ends);
  const posts = narration(canvasElement).filter((line) => /^host received POST \/api\/items from /.test(line));
  await expect(posts).toHaveLength(1);
  await expect(posts[0]).toMatch(/\(Idempotency-Key \S+…\)$/);
  // The list, the POST, and the list again: each tab invalidated it, one request for all.
  await expectRequests(canvasElement, 3);
  for (const pane of shown) {
    await expect(within(pane).getByTestId("items")).toHaveTextContent(/item 1\s*item 2/);
    await expect(mutation(pane)).toHaveTextContent(/^success$/);
    await expect(mutation(pane).parentElement!.dataset.mutationsSeen).toMatch(/^(none > )?pending · paused > pending > success$/);
  }
  await expectNoLies(shown);
  for (const who of names.filter((name) => !plan.tabs.includes(name)).map(shortOf))
    await expectNarrated(canvasElement, new RegExp(`^${who}'s new QueryClient restored 1 paused mutation `));
  const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
  await waitFor(() => expect(panel).toHaveTextContent(`claimed POST ${url} (rev 1)`), WAIT);
  await expect(panel.textContent?.match(/claimed POST /g)).toHaveLength(1);
}
