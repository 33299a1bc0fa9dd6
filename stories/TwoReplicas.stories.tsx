import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, waitFor, within } from "storybook/test";
import { expectNarrated, expectNoLies, expectTimesAColumn, findPanes, held, verdict, WAIT } from "./support/play.ts";
import { createReplicas, useDisposable } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { allSucceeded, delayArg, urlArg } from "./support/worlds.ts";

type ScenarioProps = {
  /** How long the simulated host takes to answer, in ms. */
  delayMs: number;
  /** What both panes ask for (the simulated host answers any URL). */
  url: string;
};

/**
 * Two panes, two replicas, one request: two Y.Docs joined in-page, one store and one QueryClient
 * per doc, and a simulated host shared by both. Both panes ask for the same URL at the same time;
 * one replica claims it and fetches, the other sees the claim and waits for the result.
 */
function TwoReplicas({ delayMs, url }: ScenarioProps) {
  const world = useDisposable(() => createReplicas({ names: ["Replica A", "Replica B"], host: createSimulatedHost({ delayMs }) }));
  const done = ({ state, host }: VerdictContext) =>
    allSucceeded(state, { url }) && host.inFlight === 0 && !state.replicas.some((r) => r.store.snapshot({ url }).claim)
      ? `Both panes show the host's answer #${host.requests}: ${host.requests === 1 ? "one request for two replicas" : `${host.requests} requests in all`}.`
      : undefined;
  return <ScenarioFrame world={world} request={url} verdict={done} />;
}

const meta = {
  title: "Scenarios/Two replicas",
  component: TwoReplicas,
  args: { delayMs: 600, url: "https://host.example/api/greeting" },
  argTypes: { delayMs: delayArg, url: urlArg },
  // A fresh world (docs, stores, host) whenever an arg changes.
  render: (args) => <TwoReplicas key={`${args.delayMs} ${args.url}`} {...args} />,
} satisfies Meta<typeof TwoReplicas>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Both panes end up showing the host's answer, and the host was asked once. */
export const OneRequest: Story = {
  name: "Two panes, two replicas, one request",
  parameters: {
    docs: {
      description: {
        story:
          "The point of the library, and invariant 8. Both replicas ask at once; one claims and fetches, the other sees the claim (pending, naming the claimant) and waits. One host request; both panes show its answer.",
      },
    },
  },
  play: async ({ canvasElement, args }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await waitFor(
      () => {
        expect(paneA).toHaveAttribute("data-status", "success");
        expect(paneB).toHaveAttribute("data-status", "success");
        // The claim is finished work once the result is recorded.
        expect(paneA).toHaveAttribute("data-claim", "none");
        expect(paneB).toHaveAttribute("data-claim", "none");
      },
      { timeout: args.delayMs + 15_000 },
    );
    // While the host worked, one replica held the claim and the other named it and waited.
    expect([
      [["mine"], ["replica-a"]],
      [["replica-b"], ["mine"]],
    ]).toContainEqual([held(paneA), held(paneB)]);

    const dataA = within(paneA).getByTestId("data");
    const dataB = within(paneB).getByTestId("data");
    await expect(dataA).toHaveTextContent("hello from the host");
    await expect(dataB.textContent).toBe(dataA.textContent);
    // In TanStack's words (status · fetchStatus), and how old the shown data is, fresh or stale:
    // B's age is that of A's recorded result, not of when B heard of it.
    for (const pane of [paneA, paneB]) {
      await expect(within(pane).getByTestId("status")).toHaveTextContent(/^success · idle$/);
      await expect(within(pane).getByTestId("updated")).toHaveTextContent(/^\d+\.\d s ago · stale$/);
    }
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/);
    await expect(await verdict(canvasElement)).toMatch(/one request for two replicas/);
    await expectNoLies([paneA, paneB]);
    expectTimesAColumn(canvasElement);
  },
};

/** A refetch from one pane is one more host request, and its answer reaches both panes. */
export const RefetchFromEitherPane: Story = {
  name: "Refetch from one pane updates both",
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 6 and 8. B presses Refetch: a new revision is claimed, one more host request, and its answer reaches both panes; the old data stays shown while the refetch runs.",
      },
    },
  },
  play: async ({ canvasElement, args, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    const timeout = args.delayMs + 15_000;
    await waitFor(
      () => {
        expect(paneA).toHaveAttribute("data-status", "success");
        expect(paneB).toHaveAttribute("data-status", "success");
      },
      { timeout },
    );

    await userEvent.click(within(paneB).getByRole("button", { name: "Refetch" }));
    // The narration says who pressed it: B claims the next revision.
    await expectNarrated(canvasElement, /^B claimed \/api\/greeting \(rev 2\)$/);
    await waitFor(
      () => {
        for (const pane of [paneA, paneB]) {
          expect(within(pane).getByTestId("data")).toHaveTextContent('"request": 2');
          expect(pane).toHaveAttribute("data-status", "success");
          expect(pane).toHaveAttribute("data-claim", "none");
        }
      },
      { timeout },
    );
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 2$/);
    // Each pane showed answer 1, then answer 2, and no other.
    for (const pane of [paneA, paneB]) await expect(pane).toHaveAttribute("data-answers-seen", "1 2");
    await expectNoLies([paneA, paneB]);
  },
};

/**
 * Two of these scenarios on one page, as a docs page renders every story of a file (and as two
 * browser tabs on Storybook share one origin's Web Locks): the same replica names, the same URL.
 * A test, kept out of the sidebar and the docs page.
 */
export const TwoScenariosOnOnePage: Story = {
  name: "Two scenarios on one page",
  tags: ["!dev", "!autodocs"],
  render: (args) => (
    <>
      {["first", "second"].map((name) => (
        <section key={name} aria-label={`${name} scenario`}>
          <TwoReplicas {...args} />
        </section>
      ))}
    </>
  ),
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    // Each scenario's replicas claim on their own: neither queues behind the other's "replica-a" lock.
    for (const name of ["first", "second"]) {
      const scenario = await canvas.findByRole("region", { name: `${name} scenario` }, WAIT);
      await expect(await verdict(scenario)).toMatch(/one request for two replicas/);
      await expect(within(scenario).getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/);
    }
  },
};
