import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { invalidateKey } from "../devtools/invalidate.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, verdict, WAIT } from "./support/play.ts";
import { narrateRecords, RecordInfo } from "./support/record-info.tsx";
import { createReplicas, useDisposable, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, StepButtons, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { allSucceeded, delayArg, urlArg } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };
type Step = "start" | "cut" | "invalidated" | "healed" | "asked";

const meta = {
  title: "Scenarios/Partition heal",
  args: { delayMs: 200, url: "https://host.example/api/prices" },
  argTypes: { delayMs: delayArg, url: urlArg },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/** Two devices (no shared Web Locks: each its own browser), on one network that can cut B off. */
function twoDevices(delayMs: number): Replicas {
  return createReplicas({ names: ["Replica A", "Replica B"], host: createSimulatedHost({ delayMs }), separateBrowsers: true });
}

function useSteps(world: Replicas, url: string) {
  const [step, setStep] = useState<Step>("start");
  const [quiet, setQuiet] = useState<() => void>();
  const b = world.replicas[1]!;
  return {
    step,
    cut() {
      world.net.isolate(b.doc);
      world.narration.add({ text: "the network cut B off: A and B no longer hear each other" });
      setStep("cut");
    },
    heal() {
      const off = narrateRecords(world, { url });
      setQuiet(() => off);
      world.net.heal(b.doc);
      world.narration.add({ text: "the partition healed: the docs exchanged what they missed" });
      setStep("healed");
    },
    /** The next step after the heal: what the docs record is told by the stores' events again. */
    next(step: Step) {
      quiet?.();
      setStep(step);
    },
    setStep,
  };
}

const bothShow = (world: Replicas, url: string, answer: number) =>
  world.replicas.every((r) => (r.store.snapshot({ url }).data as { request?: number } | undefined)?.request === answer);

// ---------------------------------------------------------------- newer data from the side that fetched less
function NewerDataScenario({ delayMs, url }: Args) {
  const world = useDisposable(() => twoDevices(delayMs));
  const { step, cut, heal } = useSteps(world, url);
  const done = ({ state, host }: VerdictContext) => {
    if (step !== "healed" || host.requests !== 4 || !allSucceeded(state, { url }) || !bothShow(world, url, 4)) return undefined;
    return "Healed, A's revision 3 (answer #3) won the merge by number, yet both panes show B's newer answer #4, recorded again at revision 3 in both docs: no pane went back in time, no request at the heal.";
  };
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <StepButtons
          step={step}
          buttons={[
            ["start", "Cut Replica B off", cut],
            ["cut", "Heal the partition", heal],
          ]}
        />
      }
    >
      <RecordInfo world={world} req={{ url }} />
    </ScenarioFrame>
  );
}

export const NewerDataKept: Story = {
  name: "Newer data made during a partition is kept at the heal",
  render: (args) => <NewerDataScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 6 (results kept by key and revision) and freshness across a partition. Both panes show answer #1 (revision 1). B is cut off; A refetches twice (revisions 2 and 3, answers #2 and #3), then B refetches once: its revision 2, answer #4, sent after A's. At the heal the doc merges by revision, so A's revision 3 wins, though it holds the older data. B, the writer of the newer data, records it again at revision 3 (one write), so both panes show answer #4 and neither goes back in time; nothing is sent at the heal.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    const refetch = (pane: HTMLElement) => userEvent.click(within(pane).getByRole("button", { name: "Refetch" }));
    const shows = (pane: HTMLElement, n: number) =>
      waitFor(() => expect(within(pane).getByTestId("data")).toHaveTextContent(`"request": ${n}`), WAIT);
    await shows(paneA, 1);
    await shows(paneB, 1);
    await userEvent.click(canvas.getByRole("button", { name: "Cut Replica B off" }));
    await refetch(paneA);
    await shows(paneA, 2);
    await refetch(paneA);
    await shows(paneA, 3);
    await refetch(paneB);
    await shows(paneB, 4);
    await expectNarrated(canvasElement, /^B wrote the result of \/api\/prices \(rev 2, \d+ B\)$/);
    await userEvent.click(canvas.getByRole("button", { name: "Heal the partition" }));
    await expect(await verdict(canvasElement)).toMatch(/both panes show B's newer answer #4, recorded again at revision 3/);
    await shows(paneA, 4);
    await shows(paneB, 4);
    await expectNarrated(canvasElement, /^A's doc now records rev 3, answer #4, fresh$/);
    await expect(canvas.getByTestId("records")).toHaveTextContent("A: rev 3, answer #4, fresh");
    await expect(canvas.getByTestId("records")).toHaveTextContent("B: rev 3, answer #4, fresh");
    // A never went back from #3: each pane showed each answer once, in order.
    await expect(paneA).toHaveAttribute("data-answers-seen", "1 2 3 4");
    await expect(paneB).toHaveAttribute("data-answers-seen", "1 4");
    await expectRequests(canvasElement, 4);
    await expectNoLies([paneA, paneB]);
  },
};

// ---------------------------------------------------------------- an invalidation made during a partition
function InvalidationScenario({ delayMs, url }: Args) {
  const world = useDisposable(() => twoDevices(delayMs));
  const { step, cut, heal, next, setStep } = useSteps(world, url);
  const [a, b] = world.replicas;
  const invalidate = () => {
    const done = invalidateKey(a!.store, a!.store.keyOf({ url }));
    world.narration.add({
      text: done.ok
        ? "A invalidated the key (the devtools' invalidate, as after a mutation): its record is marked stale for every replica it reaches"
        : `A's invalidation wrote nothing: ${done.message}`,
      replica: "A",
    });
    setStep("invalidated");
  };
  const ask = () => {
    world.narration.add({ text: "B asks again with a staleTime of one minute (a mount, a focus)", replica: "B" });
    next("asked");
    void b!.store.ensure({ url }, { maxAgeMs: 60_000 }).catch(() => {});
  };
  const done = ({ state, host }: VerdictContext) => {
    if (step !== "asked" || host.requests !== 3 || host.inFlight > 0 || !allSucceeded(state, { url }) || !bothShow(world, url, 3))
      return undefined;
    return "A's invalidation, made while B was cut off, held at the heal: B's answer #2 (sent before it) was shown but stale on both, so the next demand, within a minute's staleTime, sent one request (#3) and both panes show it.";
  };
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <StepButtons
          step={step}
          buttons={[
            ["start", "Cut Replica B off", cut],
            ["cut", "Invalidate in Replica A", invalidate],
            ["invalidated", "Heal the partition", heal],
            ["healed", "Ask again in Replica B", ask],
          ]}
        />
      }
    >
      <RecordInfo world={world} req={{ url }} />
    </ScenarioFrame>
  );
}

export const InvalidationKept: Story = {
  name: "An invalidation made during a partition is kept at the heal",
  render: (args) => <InvalidationScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 6 (results kept by key and revision) and freshness across a partition. Both panes show answer #1. B is cut off and refetches (its revision 2, answer #2). Then A invalidates the key, as an app does after a mutation (here the devtools' invalidate, which marks the record stale in the doc and keeps its time). At the heal B's revision 2 wins by number, but its request was sent before the invalidation: it is shown (the newest data anyone has) and recorded invalidated on both. B's next demand, though a minute's staleTime would take a fresh result, sends one request; its answer #3 reaches both panes.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    const records = () => canvas.getByTestId("records");
    const shows = (pane: HTMLElement, n: number) =>
      waitFor(() => expect(within(pane).getByTestId("data")).toHaveTextContent(`"request": ${n}`), WAIT);
    await shows(paneA, 1);
    await shows(paneB, 1);
    await userEvent.click(canvas.getByRole("button", { name: "Cut Replica B off" }));
    await userEvent.click(within(paneB).getByRole("button", { name: "Refetch" }));
    await shows(paneB, 2);
    await userEvent.click(canvas.getByRole("button", { name: "Invalidate in Replica A" }));
    await waitFor(() => expect(records()).toHaveTextContent("A: rev 1, answer #1, invalidated"), WAIT);
    await userEvent.click(canvas.getByRole("button", { name: "Heal the partition" }));
    await shows(paneA, 2);
    await waitFor(() => {
      expect(records()).toHaveTextContent("A: rev 2, answer #2, invalidated");
      expect(records()).toHaveTextContent("B: rev 2, answer #2, invalidated");
    }, WAIT);
    await expectNarrated(canvasElement, /^A's doc now records rev 2, answer #2, invalidated/);
    await expectRequests(canvasElement, 2);
    await userEvent.click(canvas.getByRole("button", { name: "Ask again in Replica B" }));
    await expect(await verdict(canvasElement)).toMatch(/held at the heal.*sent one request \(#3\)/);
    await expectNarrated(canvasElement, /^B claimed \/api\/prices \(rev 3\)$/);
    await expect(records()).toHaveTextContent("A: rev 3, answer #3, fresh");
    await expectRequests(canvasElement, 3);
    await expectNoLies([paneA, paneB]);
  },
};
