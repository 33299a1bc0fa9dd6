import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, waitFor, within } from "storybook/test";
import { atWindowWidth, expectWithin, expectWordsWhole } from "./support/layout.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, narration, verdict, WAIT } from "./support/play.ts";
import { DevtoolsSwitch, watchQueries } from "./support/query-devtools.tsx";
import { createReplicas, shortOf, useDisposable } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { delayArg, urlArg } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };

const ERROR = "Unknown error from devtools";

/** Fresh for a minute: the Query devtools' Refetch must send a request all the same, as a plain query's does. */
const FRESH = { staleTime: 60_000 };

/**
 * Two replicas show one shared query; under them, the devtools of one replica at a time:
 * TanStack's Query devtools for its QueryClient beside the shared-fetch panel for its store.
 */
function QueryDevtoolsScenario({ delayMs, url }: Args) {
  const { world, watch } = useDisposable(() => {
    const world = createReplicas({ names: ["Replica A", "Replica B"], host: createSimulatedHost({ delayMs }) });
    const watch = watchQueries(world);
    return { world, watch, destroy: () => (watch.destroy(), world.destroy()) };
  });
  // Once the result is back after Restore Error: what each button did, in one line.
  const done = ({ host, summary }: VerdictContext) => {
    const refetch = watch.presses.find((p) => p.button === "Refetch");
    const trigger = watch.presses.find((p) => p.button === "Trigger Error");
    const during = watch.whileErrorShown();
    if (!refetch || !trigger || !during?.restored || host.inFlight > 0) return undefined;
    const last = `answer #${host.requests}`;
    if (host.requests <= trigger.requests || !world.replicas.every((r) => watch.shown(shortOf(r.name)) === last)) return undefined;
    const sent = trigger.requests - refetch.requests;
    const others = during.others.map((o) => `${o.who} ${o.changes === 0 ? `kept ${o.shows}` : `changed ${o.changes} times`}`).join(", ");
    return (
      `${refetch.who}'s Refetch: ${sent} request${sent === 1 ? "" : "s"} for both panes; ${during.who}'s Trigger Error showed in ${during.who}'s pane alone ` +
      `(${others}; ${during.updates} doc updates, ${during.requests} requests); Restore Error put the result back and refetched once: both show ${last}; ${summary}.`
    );
  };
  return (
    <>
      <ScenarioFrame world={world} request={url} options={FRESH} verdict={done} />
      <DevtoolsSwitch world={world} watch={watch} />
    </>
  );
}

const meta = {
  title: "Devtools/Query devtools",
  args: { delayMs: 400, url: "https://host.example/api/greeting" },
  argTypes: { delayMs: delayArg, url: urlArg },
  render: (args) => <QueryDevtoolsScenario key={`${args.delayMs} ${args.url}`} {...args} />,
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/** The devtools of the replica named, and in them the Query devtools' region. */
function devtoolsOf(canvasElement: HTMLElement, name: string) {
  const tools = within(canvasElement).getByRole("tabpanel", { name: `${name}'s devtools` });
  const query = within(tools).getByRole("region", { name: `TanStack Query devtools of ${name}` });
  const shared = within(tools).getByRole("region", { name: "shared-fetch devtools" });
  const button = (action: string) => query.querySelector<HTMLButtonElement>(`.tsqd-query-details-action-${action}`);
  return { tools, query, shared, button };
}

/** Selects the shared query in a Query devtools (its one row) and returns the row's query key. */
async function selectSharedQuery(query: HTMLElement, userEvent: { click(el: Element): Promise<void> }): Promise<string> {
  const row = await waitFor(() => {
    const el = query.querySelector<HTMLElement>(".tsqd-query-row");
    expect(el).not.toBeNull();
    return el!;
  }, WAIT);
  await userEvent.click(row);
  await waitFor(() => expect(query.querySelector(".tsqd-query-details-action-refetch")).not.toBeNull(), WAIT);
  return row.getAttribute("aria-label") ?? "";
}

export const RefetchTriggerErrorRestore: Story = {
  name: "Query devtools: Refetch, Trigger Error and Restore on a shared query",
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 7 and 8. TanStack's own Query devtools (`ReactQueryDevtoolsPanel`) beside the shared-fetch panel, for each replica's QueryClient and store: the tabs under the panes switch between Replica A's and Replica B's. Both panes show one shared query (`useSharedFetch`, fresh for a minute: one request). The Query devtools list it under its query key, whose last part is the key the shared-fetch panel lists. In A's Query devtools: *Refetch* sends one request on fresh data, as an observer's `refetch()` does, and both panes show its answer. *Trigger Error* shows TanStack's error in A's pane alone: no claim, no request, nothing written to the shared doc, so B keeps its data and both shared-fetch panels still show the recorded result (an error never overwrites one). *Restore Error* is `resetQueries`: A shows the recorded result again, then refetches once, and both panes show that answer. The timeline says which button was pressed and what each pane showed.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB, panes } = await findPanes(canvasElement);
    const answers = (pane: HTMLElement) => pane.dataset.answersSeen ?? "";
    await waitFor(() => expect([answers(paneA), answers(paneB)]).toEqual(["1", "1"]), WAIT);
    await expectRequests(canvasElement, 1);

    // A's devtools show first: its Query devtools list the shared query under the key its shared-fetch panel lists.
    let a = devtoolsOf(canvasElement, "Replica A");
    const queryKey = await selectSharedQuery(a.query, userEvent);
    const keyRow = await within(a.shared).findByTestId("key-row", {}, WAIT);
    await expect(queryKey).toMatch(/^Query key \["shared-fetch","GET","https:\/\/host\.example\/api\/greeting",/);
    await expect(queryKey.endsWith(`"${keyRow.dataset.key}"]`)).toBe(true);
    await waitFor(() => expect(keyRow).toHaveAttribute("data-result-rev", "1"), WAIT);

    // Refetch: one request, both panes show its answer.
    await userEvent.click(a.button("refetch")!);
    await expectNarrated(canvasElement, /^A's Query devtools: Refetch$/);
    await expectNarrated(canvasElement, /^A claimed \/api\/greeting \(rev 2\)$/);
    await waitFor(() => expect([answers(paneA), answers(paneB)]).toEqual(["1 2", "1 2"]), WAIT);
    await expectRequests(canvasElement, 2);

    // Trigger Error: A's pane alone; B keeps its data, the shared record stays a result.
    await waitFor(() => expect(a.button("error")).toHaveTextContent(/^Trigger Error$/), WAIT);
    await userEvent.click(a.button("error")!);
    await expectNarrated(canvasElement, /^A's Query devtools: Trigger Error$/);
    await waitFor(() => expect(paneA).toHaveAttribute("data-status", "error"), WAIT);
    await expect(within(paneA).getByTestId("error")).toHaveTextContent(ERROR);
    await expect(a.button("error")).toHaveTextContent(/^Restore Error$/);
    await expect(paneB).toHaveAttribute("data-status", "success");
    await expect(answers(paneB)).toBe("1 2");
    await expect(within(a.shared).getByTestId("key-row")).toHaveAttribute("data-status", "success");
    await expect(within(a.shared).getByTestId("key-row")).toHaveAttribute("data-result-rev", "2");

    // B's devtools: its Query devtools show its query with data (its button offers Trigger Error), its panel the result.
    await userEvent.click(canvas.getByRole("tab", { name: "Replica B" }));
    await expectNarrated(canvasElement, /^the devtools show B's QueryClient and store$/);
    const b = devtoolsOf(canvasElement, "Replica B");
    await expect(await selectSharedQuery(b.query, userEvent)).toBe(queryKey);
    await expect(b.button("error")).toHaveTextContent(/^Trigger Error$/);
    await waitFor(() => expect(within(b.shared).getByTestId("key-row")).toHaveAttribute("data-result-rev", "2"), WAIT);
    await expect(within(b.shared).getByTestId("key-row")).toHaveAttribute("data-status", "success");
    await expect(within(paneA).getByTestId("error")).toHaveTextContent(ERROR);
    await expectRequests(canvasElement, 2);

    // Restore Error (resetQueries): A shows the recorded result again, then one request for both.
    await userEvent.click(canvas.getByRole("tab", { name: "Replica A" }));
    a = devtoolsOf(canvasElement, "Replica A");
    await userEvent.click(a.button("error")!);
    await expectNarrated(canvasElement, /^A's Query devtools: Restore Error$/);
    await expectNarrated(
      canvasElement,
      /^while A showed the devtools' error: 0 updates to the shared doc, 0 host requests; B's query unchanged, showing answer #2$/,
    );
    await expect(await verdict(canvasElement)).toMatch(
      /^A's Refetch: 1 request for both panes; A's Trigger Error showed in A's pane alone \(B kept answer #2; 0 doc updates, 0 requests\); Restore Error put the result back and refetched once: both show answer #3; 3 host requests: 3 by A\.$/,
    );
    await expectRequests(canvasElement, 3);
    for (const pane of panes) {
      await expect(answers(pane)).toBe("1 2 3");
      await expect(pane).toHaveAttribute("data-status", "success");
      await expect(within(pane).getByTestId("error")).toHaveTextContent(/^—$/);
    }
    // What each pane showed, in order: A its error between the two answers, then answer #2 again before #3.
    const shows = (who: string) => narration(canvasElement).filter((line) => line.startsWith(`${who} shows `));
    await expect(shows("A")).toEqual([
      "A shows answer #1",
      "A shows answer #2",
      `A shows the error "${ERROR}"`,
      "A shows answer #2",
      "A shows answer #3",
    ]);
    await expect(shows("B")).toEqual(["B shows answer #1", "B shows answer #2", "B shows answer #3"]);
    await expectNoLies(panes);

    // Readable as written: the description's *emphasis* rendered, not shown as asterisks.
    const description = canvas.getByTestId("story-description");
    await expect([...description.querySelectorAll("em")].map((em) => em.textContent)).toEqual([
      "Refetch",
      "Trigger Error",
      "Restore Error",
    ]);
    await expect(description.textContent).not.toContain("*");
    // Readable at any width, without a sideways scroll: each pane's JSON wraps between words and
    // after a path's "/", never inside a key or a value that fits on a line; both devtools show their
    // actions whole, the shared-fetch panel's Actions column too (past its Keys table's edge at
    // 1024 and 1280 px while the two tools were halves of the row).
    for (const width of [800, 1024, 1280, 1440, 1920]) {
      await atWindowWidth(canvasElement, width, () => {
        for (const pane of panes) expectWordsWhole(within(pane).getByTestId("data"));
        const scroller = within(a.shared).getByTestId("keys-scroller");
        expect(scroller.scrollWidth, `${width} px: the Keys table scrolls sideways`).toBeLessThanOrEqual(scroller.clientWidth);
        expectWithin(within(scroller).getByRole("columnheader", { name: "Actions" }), scroller, `${width} px: the Actions column`);
        for (const button of a.query.querySelectorAll(".tsqd-query-details-actions-btn")) {
          expectWithin(button, a.query, `${width} px: the Query devtools' ${button.textContent} button`);
        }
      });
    }
  },
};
