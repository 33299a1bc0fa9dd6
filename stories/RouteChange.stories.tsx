import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState, type CSSProperties } from "react";
import type { Awareness } from "y-protocols/awareness";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, narration, verdict, WAIT } from "./support/play.ts";
import { PaneRow, ReplicaPane } from "./support/panes.tsx";
import { linkedAwareness } from "../test/devtools/awareness.ts";
import { createReplicas, useDisposable, type Replica, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { delayArg, liveSnapshots, urlArg, useAsked } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };

const meta = {
  title: "Scenarios/Route change",
  args: { delayMs: 4000, url: "https://host.example/api/report" },
  argTypes: { delayMs: delayArg, url: urlArg },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/** Two tabs of one browser with presence (as connectTabs gives them): a joiner says it waits. */
function twoTabs(delayMs: number): Replicas & { awareness: Awareness[] } {
  const presence = linkedAwareness(2);
  const world = createReplicas({
    names: ["Replica A", "Replica B"],
    host: createSimulatedHost({ delayMs }),
    storeOptions: (i) => ({ awareness: presence.all[i] }),
  });
  return {
    ...world,
    awareness: presence.all,
    destroy() {
      world.destroy();
      presence.destroy();
    },
  };
}

const away: CSSProperties = { border: "1px dashed #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif" };

/** A replica's pane, or the route it navigated to: its `useSharedFetch` unmounted, its store lives on. */
function Route({ replica, url, left }: { replica: Replica; url: string | null; left: boolean }) {
  if (!left) return <ReplicaPane replica={replica} request={url} />;
  return (
    <section aria-label={replica.name} style={away} data-status="navigated-away">
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{replica.name} · Settings</h2>
      <p style={{ margin: 0 }}>Navigated away: the pane that asked for the report is unmounted; the tab and its store live on.</p>
    </section>
  );
}

function RouteChangeScenario({ delayMs, url, bLeaves }: Args & { bLeaves: boolean }) {
  const world = useDisposable(() => twoTabs(delayMs));
  const [a, b] = world.replicas as [Replica, Replica];
  // B asks only once A's request is at the host: A is the claimant whatever the machine's timing.
  const asked = useAsked(world.host, "A");
  const [left, setLeft] = useState({ A: false, B: false });
  const leave = (who: "A" | "B", replica: Replica) => {
    // What A's store believes as the pane goes: the narration tells the decision the store takes on it.
    const claim = a.store.inspect().keys.find((k) => k.claim?.mine && !k.claim.finished)?.claim;
    const waits = claim?.waiters?.filter((id) => id !== replica.replicaId).map((id) => world.narration.nameOf(id)) ?? [];
    world.narration.add({
      text: `${who} navigated away (its pane unmounted)${who === "A" ? `: nothing in A wants its request any more${waits.length ? `, but ${waits.join(", ")} waits on it` : ""}` : ""}`,
      replica: who,
    });
    setLeft((l) => ({ ...l, [who]: true }));
  };
  const done = ({ host, state }: VerdictContext) => {
    if (!left.A || host.requests !== 1) return undefined;
    if (bLeaves)
      return left.B && host.aborted === 1
        ? "Once neither tab wanted it, A aborted its request at the host (cancellation reaches the network): one request, none sent again."
        : undefined;
    const bSees = liveSnapshots(state, { url }).find(([r]) => r === b)?.[1];
    return bSees?.status === "success" && host.aborted === 0
      ? "A's route changed mid-request, yet its request went on because B had joined it: B got the one answer, no second request."
      : undefined;
  };
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <>
          <button type="button" onClick={() => leave("A", a)} disabled={left.A}>
            Navigate away in Replica A
          </button>
          {bLeaves && (
            <button type="button" onClick={() => leave("B", b)} disabled={!left.A || left.B}>
              Navigate away in Replica B
            </button>
          )}
        </>
      }
      panes={
        <PaneRow>
          <Route replica={a} url={url} left={left.A} />
          <Route replica={b} url={asked ? url : null} left={left.B} />
        </PaneRow>
      }
    >
      <h2 style={{ fontFamily: "system-ui, sans-serif", fontSize: 15 }}>Replica A&apos;s devtools</h2>
      <SharedFetchDevtoolsPanel store={a.store} awareness={world.awareness[0]} />
    </ScenarioFrame>
  );
}

/** The claimant's panel says who waits on its claim ("waited on by …", beside the holder). */
async function expectWaitedOnBy(canvasElement: HTMLElement, who: string | null): Promise<void> {
  const panel = within(canvasElement).getByRole("region", { name: /shared-fetch devtools/i });
  await waitFor(() => {
    const found = within(panel).queryByTestId("waiters")?.textContent ?? null;
    expect(found).toBe(who === null ? null : `waited on by ${who}`);
  }, WAIT);
}

export const KeptForTheWaiter: Story = {
  name: "Route change in the claimant: the request goes on for the replica that waits",
  render: (args) => <RouteChangeScenario key={`${args.delayMs} ${args.url}`} {...args} bLeaves={false} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 1 and 11. Tab A asks a slow host for the report and claims it; tab B joins A's request and says so in its presence (A's devtools: 'waited on by replica-b'). The user navigates away in A: nothing in A wants the request any more, and TanStack would abort it — but B waits on it, so it goes on. The host answers once and B shows the data: one request, none aborted, none sent again.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneB } = await findPanes(canvasElement);
    await waitFor(() => expect(paneB).toHaveAttribute("data-claim", "replica-a"), WAIT);
    // Only once A knows B waits: before that, A's route change aborts as it would alone.
    await expectWaitedOnBy(canvasElement, "replica-b");
    await userEvent.click(canvas.getByRole("button", { name: "Navigate away in Replica A" }));
    await expectNarrated(
      canvasElement,
      /^A navigated away \(its pane unmounted\): nothing in A wants its request any more, but B waits on it$/,
    );
    await expect(await verdict(canvasElement)).toMatch(/^A's route changed mid-request, yet its request went on/);
    await expect(within(paneB).getByTestId("data")).toHaveTextContent('"request": 1');
    await expect(paneB).toHaveAttribute("data-status", "success");
    await expectRequests(canvasElement, 1);
    await expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 0");
    await expect(narration(canvasElement).filter((line) => /aborted/.test(line))).toEqual([]);
    await expectNarrated(canvasElement, /^1 host request: 1 by A$/);
    await expectNoLies([paneB]);
  },
};

export const AbortedWhenNobodyWaits: Story = {
  name: "Route change in both: the request is aborted once nobody waits",
  args: { delayMs: 15_000 },
  render: (args) => <RouteChangeScenario key={`${args.delayMs} ${args.url}`} {...args} bLeaves />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 11. As before, A navigates away while B waits on its request: it goes on. Then B navigates away too: nobody wants the request now, B's presence says it waits no more, and A aborts it at the host, as useQuery aborts a fetch whose last observer went. One request, aborted, none sent again.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneB } = await findPanes(canvasElement);
    await waitFor(() => expect(paneB).toHaveAttribute("data-claim", "replica-a"), WAIT);
    await expectWaitedOnBy(canvasElement, "replica-b");
    await userEvent.click(canvas.getByRole("button", { name: "Navigate away in Replica A" }));
    // A's request lives on for B: still in flight, still waited on.
    await expectNarrated(canvasElement, /^A navigated away .*but B waits on it$/);
    await expect(canvas.getByTestId("host-in-flight")).toHaveTextContent("in flight: 1");
    await expectWaitedOnBy(canvasElement, "replica-b");
    await userEvent.click(canvas.getByRole("button", { name: "Navigate away in Replica B" }));
    await expect(await verdict(canvasElement)).toMatch(/^Once neither tab wanted it, A aborted its request/);
    await expectNarrated(canvasElement, /^A aborted its request: nobody waits for it any more$/);
    await expectNarrated(canvasElement, /^A's request was aborted at the host$/);
    await expectRequests(canvasElement, 1);
    await expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 1");
  },
};
