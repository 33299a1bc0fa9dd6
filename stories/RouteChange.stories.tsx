import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState, useSyncExternalStore, type CSSProperties } from "react";
import type { Awareness } from "y-protocols/awareness";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import { internalsOf } from "../src/internals.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, narration, verdict, WAIT } from "./support/play.ts";
import { expectOneLine } from "./support/layout.ts";
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
function twoTabs(delayMs: number, locks?: FakeLocks): Replicas & { awareness: Awareness[] } {
  const presence = linkedAwareness(2);
  const world = createReplicas({
    names: ["Replica A", "Replica B"],
    host: createSimulatedHost({ delayMs }),
    storeOptions: (i) => ({ awareness: presence.all[i] }),
    ...(locks ? { locks } : {}),
  });
  return {
    ...world,
    awareness: presence.all,
    // A tab's crash says no goodbye: its presence goes silent (the others keep its entry until
    // y-protocols' 30 s timeout), the browser frees its locks (FakeLocks), its code runs no more.
    crash(replica) {
      presence.cut(world.replicas.indexOf(replica));
      world.crash(replica);
      internalsOf(replica.store).dev.crash();
      const who = world.narration.nameOf(replica.replicaId);
      world.narration.add({
        text: `The browser released ${who}'s Web Lock; ${who}'s presence, silent, stays in the other tab's awareness until its 30 s timeout`,
        replica: who,
      });
    },
    destroy() {
      world.destroy();
      presence.destroy();
    },
  };
}

const away: CSSProperties = { border: "1px dashed #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif" };

/** A replica's pane, or the route it navigated to: its `useSharedFetch` unmounted, its store lives on. */
function Route({ replica, url, left, crashed }: { replica: Replica; url: string | null; left: boolean; crashed?: boolean }) {
  if (!left) return <ReplicaPane replica={replica} request={url} crashed={crashed} />;
  return (
    <section aria-label={replica.name} style={away} data-status="navigated-away">
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{replica.name} · Settings</h2>
      <p style={{ margin: 0 }}>Navigated away: the pane that asked for the report is unmounted; the tab and its store live on.</p>
    </section>
  );
}

/** After A navigates away: the host answers B, B navigates away too, or B crashes. */
type Then = "answered" | "b-leaves" | "b-crashes";

/** Milliseconds from the first timeline line matching `from` to the first after it matching `to`. */
function between(world: Replicas, from: RegExp, to: RegExp): number | undefined {
  const entries = world.narration.getSnapshot().entries;
  const start = entries.findIndex((e) => from.test(e.text));
  const end = entries.findIndex((e, i) => i > start && to.test(e.text));
  return start < 0 || end < 0 ? undefined : entries[end]!.at - entries[start]!.at;
}

function RouteChangeScenario({ delayMs, url, then }: Args & { then: Then }) {
  // A crash needs the browser's side of it: the lock manager frees the dead tab's locks.
  const world = useDisposable(() => twoTabs(delayMs, then === "b-crashes" ? new FakeLocks() : undefined));
  const [a, b] = world.replicas as [Replica, Replica];
  // B asks only once A's request is at the host: A is the claimant whatever the machine's timing.
  const asked = useAsked(world.host, "A");
  const { crashed } = useSyncExternalStore(world.subscribe, world.getSnapshot, world.getSnapshot);
  const bCrashed = crashed.has(b.replicaId);
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
    if (then === "b-leaves")
      return left.B && host.aborted === 1
        ? "Once neither tab wanted it, A aborted its request at the host (cancellation reaches the network): one request, none sent again."
        : undefined;
    if (then === "b-crashes") {
      const ms = between(world, /^B crashed$/, /^A's request was aborted at the host$/);
      return bCrashed && host.aborted === 1 && ms !== undefined
        ? `B crashed while it waited; its released Web Lock told A at once, and A aborted the request nobody waits for ${ms} ms later, not after B's presence timed out (30 s): one request, none sent again.`
        : undefined;
    }
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
          {then === "b-leaves" && (
            <button type="button" onClick={() => leave("B", b)} disabled={!left.A || left.B}>
              Navigate away in Replica B
            </button>
          )}
          {then === "b-crashes" && (
            <button type="button" onClick={() => world.crash(b)} disabled={!left.A || bCrashed}>
              Crash Replica B
            </button>
          )}
        </>
      }
      panes={
        <PaneRow>
          <Route replica={a} url={url} left={left.A} />
          <Route replica={b} url={asked ? url : null} left={left.B} crashed={bCrashed} />
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
  render: (args) => <RouteChangeScenario key={`${args.delayMs} ${args.url}`} {...args} then="answered" />,
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
  render: (args) => <RouteChangeScenario key={`${args.delayMs} ${args.url}`} {...args} then="b-leaves" />,
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
    await expectNarrated(canvasElement, /^A released \/api\/report \(rev 1\) with nothing recorded: aborted, nobody waits on it$/);
    await expectNarrated(canvasElement, /^A's request was aborted at the host$/);
    await expectRequests(canvasElement, 1);
    await expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 1");
  },
};

export const AbortedWhenTheWaiterCrashes: Story = {
  name: "B crashes while it waits: A aborts the request at once",
  args: { delayMs: 20_000 },
  render: (args) => <RouteChangeScenario key={`${args.delayMs} ${args.url}`} {...args} then="b-crashes" />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 11, with the Web Lock event of invariant 3 (a) applied to a waiter. Tabs of one browser (one lock manager). As before, A navigates away while B waits on its request: it goes on for B. Then B crashes: no goodbye, its presence goes silent and would stay in A's awareness until y-protocols' 30 s timeout — but the browser frees the dead tab's lifetime Web Lock, which A watches for every tab of its browser that waits on its request. A counts B's wait no more and aborts the request at the host at once, as useQuery aborts a fetch whose last observer went. One request, aborted, none sent again.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await waitFor(() => expect(paneB).toHaveAttribute("data-claim", "replica-a"), WAIT);
    await expectWaitedOnBy(canvasElement, "replica-b");
    // A's pane is about to go: what it showed until now is all it will ever show.
    await expectNoLies([paneA, paneB]);
    await userEvent.click(canvas.getByRole("button", { name: "Navigate away in Replica A" }));
    await expectNarrated(canvasElement, /^A navigated away .*but B waits on it$/);
    await expect(canvas.getByTestId("host-in-flight")).toHaveTextContent("in flight: 1");
    await expectWaitedOnBy(canvasElement, "replica-b");
    await userEvent.click(canvas.getByRole("button", { name: "Crash Replica B" }));
    await expect(paneB).toHaveAttribute("data-crashed", "true");
    // The host answers 20 s after A asked: an abort that waited for B's presence (30 s) never comes.
    const said = await verdict(canvasElement);
    await expect(said).toMatch(
      /^B crashed while it waited; its released Web Lock told A at once, and A aborted the request nobody waits for \d+ ms later/,
    );
    // "At once": far inside the 30 s presence timeout, with room for a busy test browser.
    await expect(Number(/(\d+) ms later/.exec(said)?.[1])).toBeLessThan(10_000);
    await expectNarrated(canvasElement, /^The browser released B's Web Lock; B's presence, silent, stays in the other tab's awareness/);
    await expectNarrated(canvasElement, /^A released \/api\/report \(rev 1\) with nothing recorded: aborted, nobody waits on it$/);
    await expectNarrated(canvasElement, /^1 host request: 1 aborted by A$/);
    await expectRequests(canvasElement, 1);
    await expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 1");
    await expectWaitedOnBy(canvasElement, null);
    await expectNoLies([paneB]);
    // A's own verdict on B, in its devtools: gone by its lock (its presence had not left).
    await userEvent.click(canvas.getByRole("tab", { name: /^Replicas/ }));
    const rowB = canvasElement.querySelector<HTMLElement>('[data-testid="replica-row"][data-replica-id="replica-b"]');
    await expect(rowB && within(rowB).getByTestId("present")).toHaveTextContent(/^absent: lock released/);
    // Each replica's claim count and its "keys" button read as one (the button wrapped under its count).
    for (const button of canvas.getAllByRole("button", { name: /^Keys of / })) expectOneLine(button.closest("td")!, "a replica's claims");
  },
};
