import type { Meta, StoryObj } from "@storybook/react-vite";
import { useEffect, useSyncExternalStore } from "react";
import { expect, within } from "storybook/test";
import { pollWindow } from "../src/core/freshness.ts";
import { expectNoLies, findPanes, verdict } from "./support/play.ts";
import { PollWatch } from "./support/polls.ts";
import { createReplicas, useDisposable } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { allSucceeded, delayArg, urlArg } from "./support/worlds.ts";

type Args = { replicas: number; intervalMs: number; intervals: number; delayMs: number; url: string };

const NAMES = ["Replica A", "Replica B", "Replica C"];

const meta = {
  title: "Scenarios/Freshness",
  args: { replicas: 3, intervalMs: 400, intervals: 4, delayMs: 150, url: "https://host.example/api/prices" },
  argTypes: {
    replicas: { description: "How many tabs poll the same URL (2 or 3).", control: { type: "number", min: 2, max: 3 } },
    intervalMs: {
      description: "Every pane's `refetchInterval` (ms). Short here so that several intervals pass while you watch.",
      control: { type: "number", min: 200, step: 100 },
    },
    intervals: {
      description: "How many poll requests the story lets the tabs make before it turns polling off, so the end state holds still.",
      control: { type: "number", min: 1, max: 10 },
    },
    delayMs: delayArg,
    url: urlArg,
  },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

// ---------------------------------------------------------------- 12. a refetch interval across tabs
function RefetchIntervalScenario({ replicas, intervalMs, intervals, delayMs, url }: Args) {
  const count = Math.min(3, Math.max(2, replicas));
  const world = useDisposable(() => {
    // Tabs of one browser (the page's Web Locks): each with its own store, QueryClient and timer.
    const w = createReplicas({ names: NAMES.slice(0, count), host: createSimulatedHost({ delayMs }) });
    const watch = new PollWatch(w, { url });
    return Object.assign(w, { watch, destroy: () => (watch.destroy(), w.destroy()) });
  });
  const { runs, rounds } = useSyncExternalStore(world.watch.subscribe, world.watch.getSnapshot, world.watch.getSnapshot);
  // The first fetch, then `intervals` polls; then polling stops.
  const polling = rounds.length <= intervals;
  useEffect(() => {
    if (!polling) world.narration.add({ text: `${intervals} intervals passed: the story turns polling off` });
  }, [polling, intervals, world]);
  const polls = Object.values(runs).reduce((a, b) => a + b, 0) - count;
  const done = ({ state, host }: VerdictContext) =>
    !polling && host.inFlight === 0 && allSucceeded(state, { url })
      ? `${count} tabs polled ${polls} times in ${intervals} intervals; the host saw ${host.requests} requests: the first, then one per interval, shared by all (not ${count} per interval).`
      : undefined;
  return (
    <ScenarioFrame
      world={world}
      request={url}
      // In the background too: a headless or hidden browser tab would otherwise stop polling.
      options={{ refetchInterval: polling ? intervalMs : false, refetchIntervalInBackground: true }}
      verdict={done}
    >
      <p
        style={{ fontFamily: "system-ui, sans-serif", fontSize: 14 }}
        data-testid="polls"
        data-runs={JSON.stringify(runs)}
        data-rounds={JSON.stringify(rounds)}
      >
        query runs (mount + polls):{" "}
        {Object.entries(runs)
          .map(([name, n]) => `${name} ${n}`)
          .join(" · ")}
      </p>
    </ScenarioFrame>
  );
}

export const RefetchInterval: Story = {
  name: "Refetch interval across tabs: one request per interval",
  render: (args) => <RefetchIntervalScenario key={JSON.stringify(args)} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Freshness shared across replicas (invariant 8 keeps every pane truthful meanwhile). Every pane polls the same URL with `refetchInterval`: each tick runs that tab's query function, which asks the store for a result younger than the interval (less 5 %). Every tab runs its own interval timer. The first tab whose tick finds the shared result too old claims the next revision; the others' ticks, a few ms later, find that claim (or the fresh result) and take it. So K tabs send one request per interval, not K — which tab sends it may change from interval to interval. The counter under the panes shows each tab's query runs: about K per interval, against one host request.",
      },
    },
  },
  play: async ({ canvasElement, args }) => {
    const count = Math.min(3, Math.max(2, args.replicas));
    const names = ["Replica A", "Replica B", "Replica C"].slice(0, count);
    const { canvas, panes } = await findPanes(canvasElement, names);
    const line = await verdict(canvasElement, 30_000 + args.intervals * (args.intervalMs + args.delayMs) * 4);
    await expect(line).toMatch(/one per interval, shared by all/);
    const rounds = JSON.parse(canvas.getByTestId("polls").dataset.rounds!) as { request: number; rev: number; at?: number }[];
    const runs = JSON.parse(canvas.getByTestId("polls").dataset.runs!) as Record<string, number>;
    // The first request, then one per interval: host requests and revisions go one to one.
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(new RegExp(`^host requests: ${args.intervals + 1}$`));
    await expect(rounds.map((r) => r.request)).toEqual(Array.from({ length: args.intervals + 1 }, (_, i) => i + 1));
    await expect(rounds.map((r) => r.rev)).toEqual(Array.from({ length: args.intervals + 1 }, (_, i) => i + 1));
    // The bound: a tick claims only when the shared result's `at` is older than the poll window
    // (95 % of the interval), so two requests' `at` are at least that far apart. Over N intervals
    // that is at most N + 1 requests (the +1: the first, at mount), never N × tabs.
    const window = pollWindow(args.intervalMs);
    for (let i = 1; i < rounds.length; i++) await expect(rounds[i]!.at! - rounds[i - 1]!.at!).toBeGreaterThanOrEqual(window - 1);
    const spanMs = rounds.at(-1)!.at! - rounds[0]!.at!;
    await expect(rounds.length - 1).toBeLessThanOrEqual(spanMs / window);
    // Every tab polled (its own timer); together they ran more polls than the host got requests: the rest were shared.
    for (const name of Object.keys(runs)) await expect(runs[name]!).toBeGreaterThanOrEqual(2);
    const polls = Object.values(runs).reduce((a, b) => a + b, 0) - count;
    await expect(polls).toBeGreaterThanOrEqual(args.intervals + count - 1);
    // Every pane showed each new answer, in order, and never "not pending, no data".
    for (const pane of panes) {
      await expect(pane.dataset.answersSeen).toBe(rounds.map((r) => r.request).join(" "));
      await expect(within(pane).getByTestId("data")).toHaveTextContent(`"request": ${args.intervals + 1}`);
    }
    await expectNoLies(panes);
  },
};
