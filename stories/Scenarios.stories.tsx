import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { atWindowWidth } from "./support/layout.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, held, verdict, WAIT } from "./support/play.ts";
import { createReplicas, useDisposable, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { allSucceeded, leaseArg, liveSnapshots, urlArg, useAsked } from "./support/worlds.ts";

type Args = { leaseMs: number; url: string };

const meta = {
  title: "Scenarios/Failures",
  args: { leaseMs: 800, url: "https://host.example/api/report" },
  argTypes: { leaseMs: leaseArg, url: urlArg },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two replicas as separate browsers (a crash is found by the lease, as across devices). */
function twoDevices(leaseMs: number, behavior: "hang" | "ok" | "first-hangs", delayMs = 300): Replicas {
  const host =
    behavior === "first-hangs"
      ? createSimulatedHost({ delayMs, behaviorFor: (call) => (call.n === 1 ? "hang" : undefined) })
      : createSimulatedHost({ delayMs, behavior });
  return createReplicas({ names: ["Replica A", "Replica B"], host, leaseMs, separateBrowsers: true });
}

// ---------------------------------------------------------------- 2. hung host
function HungHostScenario({ leaseMs, url }: Args) {
  const world = useDisposable(() => twoDevices(leaseMs, "hang"));
  const asked = useAsked(world.host, "A");
  const [closed, setClosed] = useState(false);
  const close = () => {
    setClosed(true);
    world.close(world.replicas[0]!);
  };
  // Only once B has claimed and asked again: before that, the summary would count one request and
  // the timeline would go on past the verdict.
  const done = ({ host, state }: VerdictContext) => {
    if (!closed || host.aborted < 1 || host.requests < 2) return undefined;
    const b = liveSnapshots(state, { url })[0]?.[1];
    return b?.status === "pending" && b.claim?.mine
      ? "A hung host stays pending, never 'done, nothing here'; closing A aborted its request at the host, and B, still waiting, claimed and asked again: still pending."
      : undefined;
  };
  return (
    <ScenarioFrame
      world={world}
      request={(i) => (i === 0 || asked ? url : null)}
      verdict={done}
      controls={
        <button type="button" onClick={close} disabled={closed}>
          Close Replica A
        </button>
      }
    >
      {/* Why B waits: A's claim live, its age growing past the lease while A's heartbeats keep pushing "stale in" back. */}
      <h2 style={{ fontFamily: "system-ui, sans-serif", fontSize: 15 }}>Replica B&apos;s devtools</h2>
      <SharedFetchDevtoolsPanel store={world.replicas[1]!.store} />
    </ScenarioFrame>
  );
}

export const HungHost: Story = {
  name: "Hung host: pending, never 'done, nothing here'",
  render: (args) => <HungHostScenario key={`${args.leaseMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 1, 8, 10, 11. The host never answers. A's claim is a lease, not a timeout: A's heartbeats keep it alive through many leases, both panes stay pending with one request; B's devtools show why B waits (A's claim live, claimed seconds ago, its \"stale in\" pushed back by each heartbeat). Closing A's tab aborts its request at the host (cancellation reaches the network); B, still waiting, claims and asks again.",
      },
    },
  },
  play: async ({ canvasElement, args, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    // Opened alone, the story says first what it shows and what to watch.
    await expect(canvas.getByTestId("story-description")).toHaveTextContent(/^Invariants 1, 8, 10, 11\. The host never answers\./);
    await waitFor(() => expect(paneB).toHaveAttribute("data-claim", "replica-a"), WAIT);
    await expectRequests(canvasElement, 1);
    // The one waiting that is inherent here: let several leases pass while the claimant lives.
    await sleep(args.leaseMs * 5);
    for (const pane of [paneA, paneB]) {
      await expect(pane).toHaveAttribute("data-status", "pending");
      await expect(within(pane).getByTestId("data")).toHaveTextContent("—");
      // In TanStack's words: pending with a fetch running (B's waits on A's claim), no data to age.
      await expect(within(pane).getByTestId("status")).toHaveTextContent(/^pending · fetching$/);
      await expect(within(pane).getByTestId("updated")).toHaveTextContent(/^—$/);
    }
    // B's panel says why it waits: A's claim live, claimed several leases ago, stale only if A falls silent.
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    await expect(within(panel).getByTestId("holder")).toHaveTextContent(/^replica-a · /);
    const claim = within(panel).getByTestId("claim-state").textContent ?? "";
    await expect(claim).toMatch(/^rev 1 live claimed \d+\.\d s ago · silent \d+\.\d s · stale in \d+\.\d s$/);
    await expect(Number(/claimed (\S+) s/.exec(claim)![1]) * 1000).toBeGreaterThan(args.leaseMs * 4);
    // One holder throughout, seen the same way by both: no takeover of a live (heartbeating) claim.
    await expect([held(paneA), held(paneB)]).toEqual([["mine"], ["replica-a"]]);
    await expectRequests(canvasElement, 1);
    await userEvent.click(canvas.getByRole("button", { name: "Close Replica A" }));
    await expect(await verdict(canvasElement)).toMatch(/closing A aborted its request.*B, still waiting, claimed and asked again/);
    await waitFor(() => expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 1"), WAIT);
    await expectRequests(canvasElement, 2);
    await expect(paneB).toHaveAttribute("data-status", "pending");
    await expect(held(paneB)).toEqual(["replica-a", "mine"]);
    await expectNoLies([paneB]);
    // On a phone the timeline goes under the panes: beside them, its 16rem left the panes a 75 px
    // column they overflowed onto the timeline, and B's devtools a strip one tab wide.
    await atWindowWidth(canvasElement, 380, () => {
      const timeline = canvas.getByRole("complementary", { name: "What happened" }).getBoundingClientRect();
      for (const el of [paneA, paneB, panel]) {
        const box = el.getBoundingClientRect();
        const apart = box.bottom <= timeline.top || timeline.bottom <= box.top || box.right <= timeline.left || timeline.right <= box.left;
        expect(apart, `${el.getAttribute("aria-label")} overlaps the timeline at 380 px`).toBe(true);
      }
      expect(panel.getBoundingClientRect().width, "B's devtools at 380 px").toBeGreaterThanOrEqual(300);
    });
  },
};

// ---------------------------------------------------------------- 3. crashed tab
function CrashedTabScenario({ leaseMs, url }: Args) {
  // A's request hangs; whatever comes after the crash is answered.
  const world = useDisposable(() => twoDevices(leaseMs, "first-hangs"));
  const asked = useAsked(world.host, "A");
  const [crashed, setCrashed] = useState(false);
  const crash = () => {
    setCrashed(true);
    world.crash(world.replicas[0]!);
  };
  const done = ({ state }: VerdictContext) =>
    crashed && allSucceeded(state, { url })
      ? "B took over A's abandoned claim after one lease of silence and got the data; never 'done, nothing here'."
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

export const CrashedTab: Story = {
  name: "Crashed tab: its claim is taken over",
  render: (args) => <CrashedTabScenario key={`${args.leaseMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 3 and 4. A's request hangs and A crashes: no destroy, no release, its claim stays behind. B measures A's silence on its own clock and, one lease later, rewrites the claim into its own in one step — never through 'no claim'. (As separate browsers: within one browser the Web Lock would tell at once — see Real tabs.)",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await waitFor(() => expect(paneB).toHaveAttribute("data-claim", "replica-a"), WAIT);
    await userEvent.click(canvas.getByRole("button", { name: "Crash Replica A" }));
    // A crashed pane looks crashed: labelled so, greyed out, its button off.
    await expect(paneA).toHaveAttribute("data-crashed", "true");
    await expect(within(paneA).getByRole("heading")).toHaveTextContent(/^Replica A\s*crashed$/);
    await expect(getComputedStyle(paneA).filter).toBe("grayscale(1)");
    await expect(Number(getComputedStyle(paneA).opacity)).toBeLessThan(1);
    await expect(within(paneA).getByRole("button", { name: "Refetch" })).toBeDisabled();
    await expect(await verdict(canvasElement)).toMatch(/^B took over/);
    await expect(within(paneB).getByTestId("data")).toHaveTextContent('"request": 2');
    // B went from "replica-a holds it" (then "… (stale)") straight to "mine": never "no claim".
    const holders = held(paneB)
      .map((c) => c.replace(" (stale)", ""))
      .filter((c, i, all) => c !== all[i - 1]);
    await expect(holders).toEqual(["replica-a", "mine"]);
    await expectRequests(canvasElement, 2);
    await expectNarrated(canvasElement, /^A claimed \/api\/report \(rev 1\)$/);
    await expectNarrated(canvasElement, /^A crashed$/);
    await expectNarrated(canvasElement, /^host answered B$/);
    await expectNarrated(canvasElement, /^B took over \/api\/report from A after \d+\.\d s: lease silence$/);
    await expectNarrated(canvasElement, /^2 host requests: 1 lost with A, 1 by B$/);
    await expectNoLies([paneB]);
  },
};

// ---------------------------------------------------------------- 4. crash and immediate reload
function CrashReloadScenario({ leaseMs, url }: Args) {
  const world = useDisposable(() => {
    const host = createSimulatedHost({ delayMs: 300, behaviorFor: (call) => (call.n === 1 ? "hang" : undefined) });
    return createReplicas({ names: ["Replica A"], host, leaseMs, separateBrowsers: true });
  });
  const [reloaded, setReloaded] = useState(false);
  const crashAndReload = () => {
    setReloaded(true);
    const a = world.replicas[0]!;
    world.crash(a);
    world.reload(a, "Replica A2");
  };
  const done = ({ state }: VerdictContext) =>
    reloaded && allSucceeded(state, { url })
      ? "The reloaded tab found the dead claim, re-checked it when its lease ran out (the bound is armed) and fetched: no endless spinner."
      : undefined;
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <button type="button" onClick={crashAndReload} disabled={reloaded}>
          Crash Replica A and reload it
        </button>
      }
    />
  );
}

export const CrashAndReload: Story = {
  name: "Crash and immediate reload: the bound is armed",
  render: (args) => <CrashReloadScenario key={`${args.leaseMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 9. The only tab crashes mid-request and the user reloads at once. The new tab (a new replica) finds the crashed tab's claim, younger than the lease, in its persisted doc. It runs where no Web Lock tells (they need a secure context: an http:// page off localhost, or a browser without them); with Web Locks the browser frees the crashed page's lock and the reload takes over at once, as in Real tabs. In the seed nothing would look again and the spinner would never end; here the new tab schedules its own re-check for the moment the claim goes stale, then takes over.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA } = await findPanes(canvasElement, ["Replica A"]);
    await expectRequests(canvasElement, 1);
    await waitFor(() => expect(paneA).toHaveAttribute("data-claim", "mine"), WAIT);
    await userEvent.click(canvas.getByRole("button", { name: "Crash Replica A and reload it" }));
    const paneA2 = await canvas.findByRole("region", { name: "Replica A2" }, WAIT);
    await expect(await verdict(canvasElement)).toMatch(/bound is armed/);
    await expect(paneA2).toHaveAttribute("data-status", "success");
    await expect(
      held(paneA2)
        .map((c) => c.replace(" (stale)", ""))
        .filter((c, i, all) => c !== all[i - 1]),
    ).toEqual(["replica-a", "mine"]);
    // The lease told because nothing else could: the narration says where that is, not a reload in any browser.
    await expectNarrated(canvasElement, /^A2 opened \(a reload of A: .*in a browser without Web Locks.*only A's lease tells it is gone\)$/);
    await expectNarrated(canvasElement, /^A2 took over \/api\/report from A after \d+\.\d s: lease silence$/);
    await expectNarrated(canvasElement, /^2 host requests: 1 lost with A, 1 by A2$/);
    await expectNoLies([paneA2]);
  },
};

// ---------------------------------------------------------------- 8. partition and heal
function PartitionScenario({ leaseMs, url }: Args) {
  const world = useDisposable(() => {
    const w = twoDevices(leaseMs, "ok", 400);
    for (const r of w.replicas) w.net.isolate(r.doc); // partitioned from the start
    return w;
  });
  const [healed, setHealed] = useState(false);
  const heal = () => {
    setHealed(true);
    world.narration.add({ text: "the partition healed: the docs exchanged what they missed" });
    world.net.heal();
  };
  const done = ({ state }: VerdictContext) => {
    if (!healed || !allSucceeded(state, { url })) return undefined;
    const [a, b] = liveSnapshots(state, { url }).map(([, s]) => JSON.stringify(s.data));
    return a === b ? "Cut off, both fetched (the price of a partition); healed, both show the one result the doc kept." : undefined;
  };
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <button type="button" onClick={heal} disabled={healed}>
          Heal the partition
        </button>
      }
    />
  );
}

export const Partition: Story = {
  name: "Partition: both fetch, healed they agree",
  render: (args) => <PartitionScenario key={`${args.leaseMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 6 (and the CRDT race of DESIGN.md). Two replicas that cannot hear each other each claim and fetch: a duplicate, harmless. Healed, the doc keeps one result per revision deterministically and both panes show that one. (The same partition with a failing duplicate, where the error must not erase the result — invariant 7 — is Outcomes: Failing duplicate.)",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await waitFor(() => {
      expect(paneA).toHaveAttribute("data-status", "success");
      expect(paneB).toHaveAttribute("data-status", "success");
    }, WAIT);
    await expectRequests(canvasElement, 2);
    await userEvent.click(canvas.getByRole("button", { name: "Heal the partition" }));
    await expect(await verdict(canvasElement)).toMatch(/both show the one result/);
    await expect(within(paneA).getByTestId("data").textContent).toBe(within(paneB).getByTestId("data").textContent);
    await expectRequests(canvasElement, 2);
    await expectNoLies([paneA, paneB]);
  },
};
