import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { FakeLocks } from "../sim/fake-locks.ts";
import { internalsOf } from "../src/internals.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, held, narration, verdict, WAIT } from "./support/play.ts";
import { createReplicas, useDisposable } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { allSucceeded, delayArg, leaseArg, urlArg, useAsked } from "./support/worlds.ts";

type Args = { leaseMs: number; delayMs: number; url: string; heartbeats: boolean };

const meta = {
  title: "Scenarios/Leases",
  args: { leaseMs: 600, delayMs: 2400, url: "https://host.example/api/slow", heartbeats: true },
  argTypes: {
    leaseMs: leaseArg,
    delayMs: delayArg,
    url: urlArg,
    heartbeats: {
      description:
        "Whether Replica A writes heartbeats. Off: A's store is told to write none (the development switch `dev.stopHeartbeats` of `shared-fetch/internals`; claims, results and releases are written as usual), which is the seed's behaviour — a claim that ages with the request, not with the claimant's silence.",
      control: "boolean",
    },
  },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- 5. a slow request outliving the lease
function SlowRequestScenario({ leaseMs, delayMs, url, heartbeats }: Args) {
  const world = useDisposable(() => {
    const w = createReplicas({
      names: ["Replica A", "Replica B"],
      host: createSimulatedHost({ delayMs }),
      leaseMs,
      separateBrowsers: true,
    });
    // A writes no heartbeat; its claim and result are written and travel as usual.
    if (!heartbeats) {
      internalsOf(w.replicas[0]!.store).dev.stopHeartbeats(true);
      w.narration.add({ text: "A's heartbeats are switched off (development switch): A writes none" });
    }
    return w;
  });
  const asked = useAsked(world.host, "A");
  // Said from the controls as set: a delay within one lease proves nothing about heartbeats.
  const leases = Math.round((delayMs / leaseMs) * 10) / 10;
  const done = ({ state, host, summary }: VerdictContext) => {
    if (!allSucceeded(state, { url }) || host.inFlight > 0) return undefined;
    if (host.requests > 1)
      return heartbeats
        ? `B took A's claim over and asked again (${summary}); both panes show one result.`
        : `Without heartbeats the claim aged with the request: B took it over and asked again (${summary}); both panes show one result.`;
    if (delayMs <= leaseMs) return `The request took ${delayMs} ms, within one lease (${leaseMs} ms): sent once, no lease ran out.`;
    return heartbeats
      ? `The request took ${delayMs} ms (${leases} leases) and was sent once: A's heartbeats said it was alive.`
      : `The request took ${delayMs} ms (${leases} leases) and was sent once, though A wrote no heartbeat.`;
  };
  return <ScenarioFrame world={world} request={(i) => (i === 0 || asked ? url : null)} verdict={done} />;
}

export const SlowRequest: Story = {
  name: "Slow request outliving the lease: one request (heartbeats)",
  render: (args) => <SlowRequestScenario key={JSON.stringify(args)} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 2 and 10. The host takes four leases to answer. A never judges its own work by the clock, and while its request is in flight it refreshes one liveness record every lease/3, so B measures A's silence, not the request's duration: one request.",
      },
    },
  },
  play: async ({ canvasElement, args }) => {
    const { paneA, paneB } = await findPanes(canvasElement);
    await expect(await verdict(canvasElement)).toMatch(
      new RegExp(`^The request took ${args.delayMs} ms \\(${args.delayMs / args.leaseMs} leases\\) and was sent once: A's heartbeats`),
    );
    await expectRequests(canvasElement, 1);
    await expect(held(paneB)).toEqual(["replica-a"]);
    await expect(narration(canvasElement).some((line) => /took over/.test(line))).toBe(false);
    await expectNoLies([paneA, paneB]);
  },
};

export const SlowRequestWithoutHeartbeats: Story = {
  name: "Slow request without heartbeats: the seed's duplicate",
  args: { heartbeats: false },
  render: (args) => <SlowRequestScenario key={JSON.stringify(args)} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 6 and 10, by their absence. A's store is switched to write no heartbeat (`dev.stopHeartbeats(true)` from `shared-fetch/internals`, a development switch; nothing else changes), as the seed's claims were never refreshed: after one lease B takes the healthy claim over and sends the request again. The duplicate is harmless (the first answer home counts, the second is dropped quietly), but it is the waste heartbeats prevent.",
      },
    },
  },
  play: async ({ canvasElement }) => {
    const { paneA, paneB } = await findPanes(canvasElement);
    await expect(await verdict(canvasElement, 40_000)).toMatch(/Without heartbeats/);
    await expectRequests(canvasElement, 2);
    await expectNarrated(canvasElement, /^B took over \/api\/slow from A after \d+\.\d s: lease silence$/);
    // Taken over mid-request, A does not wait: its own request goes on (invariant 2).
    await expectNarrated(canvasElement, /^A sees B's claim on \/api\/slow; its own request \(rev 1\) goes on$/);
    await expect(narration(canvasElement).filter((line) => /^A sees .* and waits$/.test(line))).toEqual([]);
    await expect(within(paneA).getByTestId("data").textContent).toBe(within(paneB).getByTestId("data").textContent);
    await expectNoLies([paneA, paneB]);
  },
};

// ---------------------------------------------------------------- 11. a hidden tab with throttled timers
function HiddenTabScenario({ leaseMs, url }: Args) {
  const world = useDisposable(() => {
    // Two tabs of one browser: one lock manager; each tab holds a lock named after itself.
    const w = createReplicas({
      names: ["Replica A", "Replica B"],
      host: createSimulatedHost({ delayMs: 300, behaviorFor: (call) => (call.n === 1 ? "hang" : undefined) }),
      leaseMs,
      locks: new FakeLocks(),
    });
    // A hidden tab's timers are throttled (to once a minute in Chrome): its heartbeats stop.
    internalsOf(w.replicas[0]!.store).dev.stopHeartbeats(true);
    w.narration.add({ text: "A is hidden: its timers are throttled, A writes no heartbeat" });
    return w;
  });
  const asked = useAsked(world.host, "A");
  const [crashed, setCrashed] = useState(false);
  const crash = () => {
    setCrashed(true);
    world.crash(world.replicas[0]!);
  };
  const done = ({ state }: VerdictContext) =>
    crashed && allSucceeded(state, { url })
      ? "Silent for many leases, A was not taken over while it lived (its Web Lock said so); its crash freed the lock and B took over at once."
      : undefined;
  return (
    <ScenarioFrame
      world={world}
      request={(i) => (i === 0 || asked ? url : null)}
      verdict={done}
      controls={
        <button type="button" onClick={crash} disabled={crashed}>
          Crash Replica A
        </button>
      }
    />
  );
}

export const HiddenTab: Story = {
  name: "Hidden tab: not taken over while it lives",
  render: (args) => <HiddenTabScenario key={JSON.stringify(args)} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 3 (a): same-browser claims are judged by Web Locks, not by the lease. A is a hidden tab whose throttled timers send no heartbeat; B queues on A's lock instead of counting A's silence, so A is never taken over while it lives. When A crashes, the browser frees its lock and B takes over at once, with no timer.",
      },
    },
  },
  play: async ({ canvasElement, args, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await waitFor(() => expect(paneB).toHaveAttribute("data-claim", "replica-a"), WAIT);
    // Inherent waiting: several leases of silence from A must pass without a takeover.
    await sleep(args.leaseMs * 4);
    await expectRequests(canvasElement, 1);
    await expect(held(paneB)).toEqual(["replica-a"]);
    await userEvent.click(canvas.getByRole("button", { name: "Crash Replica A" }));
    await expect(await verdict(canvasElement)).toMatch(/took over at once/);
    await expectNarrated(canvasElement, /^B took over \/api\/slow from A: lock released$/);
    await expectRequests(canvasElement, 2);
    await expect(paneA).toHaveAttribute("data-crashed", "true");
    await expectNoLies([paneB]);
  },
};
