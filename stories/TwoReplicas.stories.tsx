import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { findPanes, held } from "./support/play.ts";
import { HostCounter, ReplicaPanes } from "./support/panes.tsx";
import { createReplicas, useDisposable } from "./support/replicas.ts";
import { createSimulatedHost } from "./support/simulated-host.ts";

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
  const [host] = useState(() => createSimulatedHost({ delayMs }));
  const world = useDisposable(() =>
    createReplicas({ names: ["Replica A", "Replica B"], fetch: host.fetch }),
  );
  return (
    <div>
      <HostCounter host={host} />
      <ReplicaPanes replicas={world.replicas} request={url} />
    </div>
  );
}

const meta = {
  title: "Scenarios/Two replicas",
  component: TwoReplicas,
  args: { delayMs: 600, url: "https://host.example/api/greeting" },
  argTypes: {
    delayMs: { control: { type: "number", min: 0, step: 100 } },
    url: { control: "text" },
  },
  // A fresh world (docs, stores, host) whenever an arg changes.
  render: (args) => <TwoReplicas key={`${args.delayMs} ${args.url}`} {...args} />,
} satisfies Meta<typeof TwoReplicas>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Both panes end up showing the host's answer, and the host was asked once. */
export const OneRequest: Story = {
  name: "Two panes, two replicas, one request",
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
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/);
  },
};

/** A refetch from one pane is one more host request, and its answer reaches both panes. */
export const RefetchFromEitherPane: Story = {
  name: "Refetch from one pane updates both",
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
  },
};
