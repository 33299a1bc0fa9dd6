import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState } from "react";
import { expect, waitFor } from "storybook/test";
import { describeSettle, LOCKS_REFUSED } from "../devtools/format.ts";
import { pathOf } from "./support/narration.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, held, narration, verdict, WAIT } from "./support/play.ts";
import { createReplicas, shortOf, useDisposable, type Replicas } from "./support/replicas.ts";
import { refusingLocks } from "./support/refusing-locks.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { allSucceeded, leaseArg, urlArg, useAsked } from "./support/worlds.ts";

type Args = { leaseMs: number; url: string };

/** The devtools' line on a store whose Web Locks were refused, as a pattern. */
const REFUSED = LOCKS_REFUSED.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const meta = {
  title: "Scenarios/Web Locks refused",
  args: { leaseMs: 800, url: "https://host.example/api/report" },
  argTypes: { leaseMs: leaseArg, url: urlArg },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/**
 * Two tabs of one browser whose Web Locks refuse every request. The devtools tell each store's
 * refusal and the yield of the claim the doc did not keep; each claim's settle window, from its
 * `claimed` event, is told beside them.
 */
function refusedTabs(leaseMs: number): Replicas {
  const names = ["Replica A", "Replica B"];
  const world = createReplicas({
    names,
    // The claimant's request hangs: it is still in flight when the claimant crashes.
    host: createSimulatedHost({ delayMs: 300, behaviorFor: (call) => (call.n === 1 ? "hang" : undefined) }),
    leaseMs,
    storeOptions: () => ({ locks: refusingLocks(), browserId: "one-browser" }),
  });
  const n = world.narration;
  n.add({
    text: "A and B are tabs of one browser whose Web Locks refuse every request (a SecurityError, as in an opaque origin or a sandboxed iframe): each store warns once on the console",
  });
  const offs = world.replicas.map((r) =>
    r.store.onEvent((e) => {
      if (e.type !== "claimed") return;
      const who = shortOf(r.name);
      n.add({
        text: `${who} waits before sending ${pathOf(e.label)} (rev ${e.rev}${e.takeoverOf ? ", a takeover" : ""}), as no key lock decides between the tabs (${describeSettle(e.settleMs, e.settleWhy)})`,
        replica: who,
        key: e.key,
      });
    }),
  );
  const destroy = world.destroy;
  world.destroy = () => {
    for (const off of offs) off();
    destroy();
  };
  return world;
}

function LocksRefusedScenario({ leaseMs, url }: Args) {
  const world = useDisposable(() => refusedTabs(leaseMs));
  // The claimant is whoever sent the request: both ask at once, and the doc's merge picks one.
  const [claimant, setClaimant] = useState<string>();
  const asked = useAsked(world.host);
  const crash = () => {
    const from = world.host.calls[0]?.from;
    const replica = world.replicas.find((r) => shortOf(r.name) === from);
    if (!replica) return;
    setClaimant(from);
    world.crash(replica);
  };
  const done = ({ state }: VerdictContext) => {
    if (claimant === undefined || !allSucceeded(state, { url })) return undefined;
    const survivor = claimant === "A" ? "B" : "A";
    return `With Web Locks refused, the settle window let one tab send while both lived; ${claimant}'s crash freed no lock, and ${survivor} took over after one lease of silence (with Web Locks: at once).`;
  };
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <button type="button" onClick={crash} disabled={!asked || claimant !== undefined}>
          Crash the claimant
        </button>
      }
    />
  );
}

export const ClaimantCrash: Story = {
  name: "Web Locks refused: the settle window, then the lease",
  render: (args) => <LocksRefusedScenario key={`${args.leaseMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 3 and 8 where the browser refuses Web Locks (an opaque origin, a sandboxed iframe; a broken `locks` option alike). Two tabs of one browser ask at once: each store is refused its key's lock, warns once on the console and claims as a store without Web Locks does, waiting a settle window, so only the claim the doc keeps sends: one request. Its tab then crashes. No lock of it is held, so none is freed: the other tab finds the crash by the lease, one lease of silence later, not at once as with Web Locks (see Leases · hidden tab).",
      },
    },
  },
  play: async ({ canvasElement, args, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    // One tab claims and sends, the other names it and waits.
    await waitFor(() => {
      const claims = [paneA.dataset.claim, paneB.dataset.claim];
      expect([
        ["mine", "replica-a"],
        ["replica-b", "mine"],
      ]).toContainEqual(claims);
    }, WAIT);
    await expectRequests(canvasElement, 1);
    const [claimant, survivor, waiting] = paneA.dataset.claim === "mine" ? ["A", "B", paneB] : ["B", "A", paneA];
    // Both claimed at once, each refused its key's lock: each tab's devtools told the refusal, and
    // each claim waited the settle window; the doc kept one claim and the other tab yielded to it.
    for (const tab of ["A", "B"]) {
      await expectNarrated(canvasElement, new RegExp(`^${tab}: ${REFUSED}$`));
      await expectNarrated(
        canvasElement,
        new RegExp(`^${tab} waits before sending /api/report \\(rev 1\\), as no key lock decides.*window 100 ms`),
      );
    }
    await expectNarrated(canvasElement, new RegExp(`^${survivor} yielded /api/report \\(rev 1\\) to ${claimant}'s claim: sent nothing$`));
    await userEvent.click(canvas.getByRole("button", { name: "Crash the claimant" }));
    await expect(await verdict(canvasElement)).toMatch(new RegExp(`${survivor} took over after one lease of silence`));
    // By the lease, on the survivor's clock: never "lock released", and no sooner than one lease.
    const took = new RegExp(`^${survivor} took over /api/report from ${claimant} after (\\d+\\.\\d) s: lease silence$`);
    await expectNarrated(canvasElement, took);
    const after = Number(took.exec(narration(canvasElement).find((line) => took.test(line))!)![1]);
    await expect(after).toBeGreaterThanOrEqual(Math.floor(args.leaseMs / 100) / 10);
    await expect(narration(canvasElement).filter((line) => /lock released|Web Lock was released/.test(line))).toEqual([]);
    await expectNarrated(
      canvasElement,
      new RegExp(`^${survivor} waits before sending /api/report \\(rev 1, a takeover\\), as no key lock decides`),
    );
    await expectNarrated(canvasElement, new RegExp(`^2 host requests: 1 lost with ${claimant}, 1 by ${survivor}$`));
    await expectRequests(canvasElement, 2);
    // Once per store, though each was refused again (its replica lock; the takeover's key lock).
    const refused = narration(canvasElement).filter((line) => line.endsWith(LOCKS_REFUSED));
    await expect(refused.map((line) => line[0]).sort()).toEqual(["A", "B"]);
    // The loser's own claim is told before its yield, though the winner's overwrote it at once.
    const lines = narration(canvasElement);
    await expect(lines.indexOf(`${survivor} claimed /api/report (rev 1)`)).toBeGreaterThan(-1);
    await expect(lines.indexOf(`${survivor} claimed /api/report (rev 1)`)).toBeLessThan(
      lines.findIndex((line) => line.startsWith(`${survivor} yielded`)),
    );
    // The survivor went from the claimant's claim straight to its own: never "no claim".
    const holders = held(waiting)
      .map((c) => c.replace(" (stale)", ""))
      .filter((c, i, all) => c !== all[i - 1]);
    await expect(holders).toEqual([`replica-${claimant.toLowerCase()}`, "mine"]);
    await expect(waiting).toHaveAttribute("data-status", "success");
    await expect(claimant === "A" ? paneA : paneB).toHaveAttribute("data-crashed", "true");
    await expectNoLies([paneA, paneB]);
  },
};
