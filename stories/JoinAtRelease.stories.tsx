import type { Meta, StoryObj } from "@storybook/react-vite";
import { useEffect, useState, type CSSProperties } from "react";
import { expect, waitFor, within } from "storybook/test";
import { connectTabs } from "../src/index.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, narration, verdict, WAIT } from "./support/play.ts";
import { PaneRow, ReplicaPane } from "./support/panes.tsx";
import { createReplicas, useDisposable, type Replica, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { delayArg, liveSnapshots, urlArg, useAsked } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };

const meta = {
  title: "Scenarios/Join at release",
  args: { delayMs: 3000, url: "https://host.example/api/report" },
  argTypes: { delayMs: delayArg, url: urlArg },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/**
 * Two tabs of one browser, each on `connectTabs` with the page's own BroadcastChannel (a name of
 * this scenario's own): a joiner's wait reaches the claimant as a message, a task or more later,
 * as between real tabs, and the claimant's flush asks the tabs to answer behind what they posted.
 */
function twoTabs(delayMs: number): Replicas {
  const name = `join-at-release-${Math.random().toString(36).slice(2, 10)}`;
  return createReplicas({
    names: ["Replica A", "Replica B"],
    host: createSimulatedHost({ delayMs }),
    connect: (doc) => connectTabs(doc, { name, indexeddb: false }),
  });
}

const away: CSSProperties = { border: "1px dashed #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif" };

/** A's pane, or the route it navigated to (its `useSharedFetch` unmounted; the tab and its store live on). */
function RouteA({ replica, url, left }: { replica: Replica; url: string; left: boolean }) {
  if (!left) return <ReplicaPane replica={replica} request={url} />;
  return (
    <section aria-label={replica.name} style={away} data-status="navigated-away">
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{replica.name} · Settings</h2>
      <p style={{ margin: 0 }}>Navigated away: the pane that asked for the report is unmounted; the tab and its store live on.</p>
    </section>
  );
}

/** Narrates the moment the claimant first hears the joiner's wait (its claim's waiters, in its own inspection). */
function useHeardWait(world: Replicas): void {
  useEffect(() => {
    const [a, b] = world.replicas as [Replica, Replica];
    let heard = false;
    const look = () => {
      const claim = a.store.inspect().keys.find((k) => k.claim?.mine && !k.claim.finished)?.claim;
      if (heard || !claim?.waiters?.includes(b.replicaId)) return;
      heard = true;
      world.narration.add({ text: "A heard B's wait (B's presence, over the BroadcastChannel)", replica: "A" });
    };
    return a.store.onInspect(look);
  }, [world]);
}

function JoinAtReleaseScenario({ delayMs, url }: Args) {
  const world = useDisposable(() => twoTabs(delayMs));
  const [a, b] = world.replicas as [Replica, Replica];
  // Only once A's request is at the host: A is the claimant whatever the machine's timing.
  const asked = useAsked(world.host, "A");
  const [moved, setMoved] = useState(false);
  useHeardWait(world);
  const move = () => {
    world.narration.add({
      text: "In one moment A navigates away (nothing in A wants its request any more) and B opens the report: B's wait is still on its way to A",
    });
    setMoved(true);
  };
  const done = ({ host, state }: VerdictContext) => {
    if (!moved || host.requests !== 1 || host.inFlight > 0) return undefined;
    const bSees = liveSnapshots(state, { url }).find(([r]) => r === b)?.[1];
    return bSees?.status === "success" && host.aborted === 0
      ? "B joined just as A's own ask ended: A kept its request until the tabs answered its flush, heard B's wait, and B got the one answer (1 request, none aborted, none sent again)."
      : undefined;
  };
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <button type="button" onClick={move} disabled={!asked || moved}>
          A navigates away as B opens the report
        </button>
      }
      panes={
        <PaneRow>
          <RouteA replica={a} url={url} left={moved} />
          <ReplicaPane replica={b} request={moved ? url : null} />
        </PaneRow>
      }
    />
  );
}

export const JoinedAsTheAskEnds: Story = {
  name: "A tab joins just as the claimant's own ask ends: one request",
  render: (args) => <JoinAtReleaseScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 11 meets a race. Tabs A and B of one browser, each on `connectTabs`. A asks a slow host for the report. In the same moment A navigates away and B opens the report: B joins A's claim, but its wait travels over the BroadcastChannel and is still on its way when A's store sees that nothing in A wants the request. Aborting at once would leave B to find the claim released and send the request again. A keeps it until the tabs of its browser answered a flush (their answers come behind what they posted before it: a few ms, at most 250), hears B's wait, and lets the request go on: one request, and B shows its answer.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA } = await findPanes(canvasElement);
    await waitFor(() => expect(paneA).toHaveAttribute("data-claim", "mine"), WAIT);
    const move = canvas.getByRole("button", { name: "A navigates away as B opens the report" });
    await waitFor(() => expect(move).toBeEnabled(), WAIT);
    await expectNoLies([paneA]);
    await userEvent.click(move);
    await expectNarrated(canvasElement, /^A heard B's wait/);
    await expect(await verdict(canvasElement)).toMatch(/^B joined just as A's own ask ended/);
    const paneB = canvas.getByRole("region", { name: "Replica B" });
    await expect(within(paneB).getByTestId("data")).toHaveTextContent('"request": 1');
    // B waited on A's claim all along: it never claimed, never showed "no claim" while A worked.
    await expect(paneB.dataset.claimsSeen?.split(" > ").filter((c) => c !== "none")).toEqual(["replica-a"]);
    await expectRequests(canvasElement, 1);
    await expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 0");
    await expect(narration(canvasElement).filter((line) => /aborted/.test(line))).toEqual([]);
    await expectNarrated(canvasElement, /^1 host request: 1 by A$/);
    await expectNoLies([paneB]);
  },
};
