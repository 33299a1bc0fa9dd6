import type { Meta, StoryObj } from "@storybook/react-vite";
import { useEffect, useState } from "react";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { expect, waitFor, within } from "storybook/test";
import { findPanes, held } from "./support/play.ts";
import { HostCounter, ReplicaPanes } from "./support/panes.tsx";
import { createReplicas, useDisposable, type Replicas } from "./support/replicas.ts";
import { createSimulatedHost, type HostBehavior, type SimulatedHost } from "./support/simulated-host.ts";

type ScenarioProps = {
  /** The lease bound of every claim, short here so that several pass while you watch. */
  leaseMs: number;
  /** How the host treats the first request. */
  first: HostBehavior;
  url: string;
};

/** Two replicas on linked docs, one simulated host, and a button that crashes Replica A. */
function Scenario({ leaseMs, first, url }: ScenarioProps) {
  const [host] = useState(() => createSimulatedHost({ delayMs: 300, behavior: first }));
  const world = useDisposable(() => createReplicas({ names: ["Replica A", "Replica B"], fetch: host.fetch, leaseMs, separateBrowsers: true }));
  const [crashed, setCrashed] = useState(false);
  // B asks once A's request is out, so that A is the claimant (the story is about A's fate).
  const [aDispatched, setADispatched] = useState(false);
  useEffect(
    () => (world.replicas[0]!.store as SharedFetchStoreWithExtras).onEvent((e) => e.type === "dispatched" && setADispatched(true)),
    [world],
  );
  const crash = () => {
    crashA(world, host);
    setCrashed(true);
  };
  return (
    <div>
      <HostCounter host={host} />
      <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 14 }}>
        lease {leaseMs} ms ·{" "}
        <button type="button" onClick={crash} disabled={crashed}>
          Crash Replica A
        </button>{" "}
        {crashed && <span data-testid="crashed">Replica A crashed: its doc no longer syncs, its claim stays behind</span>}
      </p>
      <ReplicaPanes replicas={world.replicas} request={(i) => (i === 0 || aDispatched ? url : null)} />
    </div>
  );
}

/**
 * A crash is not an orderly stop: no destroy(), no release. Replica A's doc simply stops
 * syncing (its heartbeats no longer reach B); its claim stays in B's doc until B's lease runs out.
 * (The replicas play separate browsers: within one real browser the crashed tab's Web Lock would
 * be released and B would take over at once — see test/browser/tabs.test.ts.)
 */
function crashA(world: Replicas, host: SimulatedHost): void {
  const docA = world.replicas[0]!.doc;
  for (const link of world.linked.links) if (link.ends.includes(docA)) link.cut();
  // What comes after the crash is answered: the replica that takes over gets the data.
  host.behavior = "ok";
}

const meta = {
  title: "Scenarios/Failures",
  component: Scenario,
  args: { leaseMs: 800, first: "hang", url: "https://host.example/api/report" },
  argTypes: {
    leaseMs: { control: { type: "number", min: 100, step: 100 } },
    first: { control: "inline-radio", options: ["ok", "fail", "hang"] },
    url: { control: "text" },
  },
  render: (args) => <Scenario key={`${args.leaseMs} ${args.first} ${args.url}`} {...args} />,
} satisfies Meta<typeof Scenario>;

export default meta;
type Story = StoryObj<typeof meta>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A host that never answers: both replicas stay pending through many leases, with one request. */
export const HungHost: Story = {
  name: "Hung host: pending, never 'done, nothing here'",
  play: async ({ canvasElement, args }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await waitFor(() => expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/), { timeout: 15_000 });
    // The one waiting that is inherent here: let several leases pass while the claimant lives.
    await sleep(args.leaseMs * 5);
    for (const pane of [paneA, paneB]) {
      await expect(pane).toHaveAttribute("data-status", "pending");
      await expect(within(pane).getByTestId("data")).toHaveTextContent("—");
    }
    // One holder throughout, seen the same way by both: no takeover of a live (heartbeating) claim.
    await expect([held(paneA), held(paneB)]).toEqual([["mine"], ["replica-a"]]);
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/);
  },
};

/** Replica A crashes mid-request: B takes its claim over after one lease and gets the data. */
export const CrashedTab: Story = {
  name: "Crashed tab: its claim is taken over",
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    // Replica A is the claimant (B asks once A's request is out): wait until B names it.
    await waitFor(() => expect(paneB).toHaveAttribute("data-claim", "replica-a"), { timeout: 15_000 });
    await userEvent.click(canvas.getByRole("button", { name: "Crash Replica A" }));
    await waitFor(() => expect(paneB).toHaveAttribute("data-status", "success"), { timeout: 15_000 });
    await expect(within(paneB).getByTestId("data")).toHaveTextContent('"request": 2');
    // B went from "replica-a holds it" (then "… (stale)", once its lease ran out) straight to
    // "mine": never "no claim" in between.
    const holders = held(paneB)
      .map((c) => c.replace(" (stale)", ""))
      .filter((c, i, all) => c !== all[i - 1]);
    await expect(holders).toEqual(["replica-a", "mine"]);
    await expect(paneA).toHaveAttribute("data-status", "pending");
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 2$/);
  },
  parameters: {
    docs: { description: { story: "A's request hangs; after the crash the host answers whatever comes next." } },
  },
};

/** Two replicas that cannot hear each other (a partition) both fetch; healed, they agree on one result. */
function PartitionScenario({ leaseMs, url }: { leaseMs: number; url: string }) {
  const [host] = useState(() => createSimulatedHost({ delayMs: 400 }));
  const world = useDisposable(() => {
    const replicas = createReplicas({ names: ["Replica A", "Replica B"], fetch: host.fetch, leaseMs, separateBrowsers: true });
    for (const link of replicas.linked.links) link.cut(); // partitioned from the start
    return replicas;
  });
  const [healed, setHealed] = useState(false);
  const heal = () => {
    for (const link of world.linked.links) link.reconnect();
    setHealed(true);
  };
  return (
    <div>
      <HostCounter host={host} />
      <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 14 }}>
        <button type="button" onClick={heal} disabled={healed}>
          Heal the partition
        </button>{" "}
        {healed && <span data-testid="healed">healed: the docs exchanged what they missed</span>}
      </p>
      <ReplicaPanes replicas={world.replicas} request={url} />
    </div>
  );
}

export const Partition: StoryObj<typeof PartitionScenario> = {
  name: "Partition: both fetch, healed they agree",
  render: (args) => <PartitionScenario key={`${args.leaseMs} ${args.url}`} {...args} />,
  args: { leaseMs: 800, url: "https://host.example/api/report" },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    // Neither can see the other's claim, so each fetches: a duplicate, the price of a partition.
    await waitFor(
      () => {
        expect(paneA).toHaveAttribute("data-status", "success");
        expect(paneB).toHaveAttribute("data-status", "success");
      },
      { timeout: 15_000 },
    );
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 2$/);
    await userEvent.click(canvas.getByRole("button", { name: "Heal the partition" }));
    // Both revisions are 1: the doc keeps one of the two results, and both panes show that one.
    await waitFor(() => expect(within(paneA).getByTestId("data").textContent).toBe(within(paneB).getByTestId("data").textContent), { timeout: 15_000 });
    await expect(paneA).toHaveAttribute("data-status", "success");
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 2$/);
  },
};
