import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState, useSyncExternalStore } from "react";
import { expect, waitFor, within } from "storybook/test";
import type { SharedRequest } from "../src/index.ts";
import type { HostCall } from "../sim/host.ts";
import { insertsOnly } from "../sim/network.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, held, narration, verdict, WAIT } from "./support/play.ts";
import { createReplicas, useDisposable, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { MOCKED_API, mockedApi, workerFetch, workerScript } from "./support/mocked-host.ts";
import { createSimulatedHost, type PerCall } from "./support/simulated-host.ts";
import { leaseArg, liveSnapshots, urlArg, useAsked } from "./support/worlds.ts";

type Args = { leaseMs: number; url: string };

const meta = {
  title: "Scenarios/Outcomes",
  args: { leaseMs: 600, url: "https://host.example/api/report" },
  argTypes: { leaseMs: leaseArg, url: urlArg },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/**
 * Two devices where A's heartbeats are lost (a suspended laptop, a throttled tab): after one lease
 * B takes A's healthy claim over, so both requests are in flight — the stage of every duplicate.
 */
function silentA(leaseMs: number, behaviorFor: (call: HostCall) => PerCall | undefined, throughWorker = false): Replicas {
  const host = createSimulatedHost({ behaviorFor });
  const w = createReplicas({
    names: ["Replica A", "Replica B"],
    host,
    leaseMs,
    separateBrowsers: true,
    ...(throughWorker ? { fetchFor: (from: string) => workerFetch(from, host) } : {}),
  });
  const docA = w.replicas[0]!.doc;
  w.net.drop = (from, update) => from === docA && insertsOnly(update, "beats");
  return w;
}

const settledWithData = ({ state, host }: VerdictContext, req: SharedRequest, calls: number) =>
  host.requests === calls && host.inFlight === 0 && liveSnapshots(state, req).every(([, s]) => s.data !== undefined);

// ---------------------------------------------------------------- 6. a failing duplicate
function FailingDuplicateScenario({ leaseMs, url }: Args) {
  // Cut off from each other, both fetch: A's answer is good, B's duplicate is rate-limited.
  const world = useDisposable(() => {
    const host = createSimulatedHost({ delayMs: 300, behaviorFor: (call) => (call.from === "B" ? "rate-limit" : "ok") });
    // Real fetch to /api/report, answered through Mock Service Worker by this host.
    const w = createReplicas({
      names: ["Replica A", "Replica B"],
      host,
      leaseMs,
      separateBrowsers: true,
      fetchFor: (from) => workerFetch(from, host),
    });
    for (const r of w.replicas) w.net.isolate(r.doc);
    return w;
  });
  const [healed, setHealed] = useState(false);
  const heal = () => {
    setHealed(true);
    world.narration.add({ text: "the partition healed: B's error record meets A's result" });
    world.net.heal();
  };
  const done = (ctx: VerdictContext) =>
    healed && settledWithData(ctx, { url }, 2) && liveSnapshots(ctx.state, { url }).every(([, s]) => s.status === "success")
      ? "B's duplicate was rate-limited (HTTP 429), A's succeeded; merged, both panes show A's result: an error never erases a result."
      : undefined;
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

/** The URL control of the stories whose requests go through Mock Service Worker. */
const mockedUrlArg = {
  ...urlArg,
  description: `What the panes ask for: a real fetch, answered by Mock Service Worker for any path under ${MOCKED_API}/ (other URLs go to the network).`,
};

export const FailingDuplicate: Story = {
  name: "Failing duplicate (429) does not erase the good result",
  args: { url: `${MOCKED_API}/report` },
  argTypes: { url: mockedUrlArg },
  beforeEach: ({ msw }) => {
    msw.use(...mockedApi());
  },
  render: (args) => <FailingDuplicateScenario key={JSON.stringify(args)} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 7. Two requests for the same inputs (here a partition: each replica claims and fetches). A's comes home with the data; B's duplicate is rate-limited, as a duplicate plausibly is. In the seed the error path cleared the result; here results and errors are separate records, so when the docs merge the error takes nothing away and both panes show A's result. Both requests are real fetches to /api/report, answered through Mock Service Worker.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await waitFor(() => {
      expect(paneA).toHaveAttribute("data-status", "success");
      expect(paneB).toHaveAttribute("data-status", "error");
    }, WAIT);
    await expect(within(paneB).getByTestId("error")).toHaveTextContent("HTTP 429");
    // Both requests were real fetches, answered through the service worker.
    await expect(workerScript()).toMatch(/\/mockServiceWorker\.js$/);
    await userEvent.click(canvas.getByRole("button", { name: "Heal the partition" }));
    await expect(await verdict(canvasElement)).toMatch(/error never erases a result/);
    await expectRequests(canvasElement, 2);
    await expectNarrated(canvasElement, /^host answered B with HTTP 429$/);
    const aData = within(paneA).getByTestId("data").textContent;
    await expect(aData).toContain('"request"');
    await expect(within(paneB).getByTestId("data").textContent).toBe(aData);
    await expect(paneB).toHaveAttribute("data-status", "success");
    await expectNoLies([paneA, paneB]);
  },
};

// ---------------------------------------------------------------- 7. teardown after takeover
function TeardownScenario({ leaseMs, url }: Args) {
  // A's request hangs; B's, after the takeover, is answered after three leases.
  const world = useDisposable(() => silentA(leaseMs, (call) => (call.n === 1 ? "hang" : { behavior: "ok", delayMs: leaseMs * 3 })));
  const asked = useAsked(world.host, "A");
  const [closed, setClosed] = useState(false);
  const close = () => {
    setClosed(true);
    world.close(world.replicas[0]!);
  };
  const done = (ctx: VerdictContext) =>
    closed && settledWithData(ctx, { url }, 2)
      ? "A's teardown released only what carried A's id: B's claim stood, and B's request finished."
      : undefined;
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
    />
  );
}

export const TeardownAfterTakeover: Story = {
  name: "Teardown after takeover leaves the new owner's claim alone",
  render: (args) => <TeardownScenario key={JSON.stringify(args)} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 5. B took over A's claim (A went silent). Then A's tab closes in an orderly way. In the seed every replica wrote the same claim id, so A's teardown released B's claim and published 'done, nothing here'; here a claim names its replica and A releases only its own.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneB } = await findPanes(canvasElement);
    await expectNarrated(canvasElement, /^B took over \/api\/report from A after \d+\.\d s: lease silence$/);
    await userEvent.click(canvas.getByRole("button", { name: "Close Replica A" }));
    await expect(await verdict(canvasElement, 40_000)).toMatch(/B's claim stood/);
    const lines = narration(canvasElement);
    const closedAt = lines.findIndex((l) => /^A closed its tab/.test(l));
    const recordedAt = lines.findIndex((l) => /^B wrote the result of /.test(l));
    await expect(closedAt).toBeGreaterThanOrEqual(0);
    await expect(recordedAt).toBeGreaterThan(closedAt);
    await expect(within(paneB).getByTestId("data")).toHaveTextContent('"request": 2');
    // B's view: A's claim, then its own, then none once recorded — never "none" while it worked.
    await expect(
      held(paneB)
        .map((c) => c.replace(" (stale)", ""))
        .filter((c, i, all) => c !== all[i - 1]),
    ).toEqual(["replica-a", "mine"]);
    await expectNoLies([paneB]);
  },
};

// ---------------------------------------------------------------- 9. a POST after takeover
const ORDER: SharedRequest = { url: `${MOCKED_API}/orders`, method: "POST", body: '{"item":"book"}' };

/** A host that keeps the first answer per Idempotency-Key and replays it to any duplicate. */
function idempotentWorld(leaseMs: number): Replicas {
  // Real fetch to /api/orders, answered through Mock Service Worker by this host.
  const w = silentA(leaseMs, () => undefined, true);
  const host = w.host;
  const firsts = new Map<string, HostCall>();
  const dups = new Map<string, HostCall[]>();
  host.auto = (call) => {
    const key = call.headers["idempotency-key"];
    if (!key) return { status: 400, body: { error: "Idempotency-Key required" } };
    const first = firsts.get(key);
    if (!first) {
      firsts.set(key, call);
      w.narration.add({ text: `host placed order #${firsts.size}` });
      return { status: 200, body: { order: firsts.size, request: call.n }, delayMs: leaseMs * 3 };
    }
    w.narration.add({ text: `host: same Idempotency-Key as request ${first.n}, no new order; it will replay that answer` });
    dups.set(key, [...(dups.get(key) ?? []), call]);
    return undefined;
  };
  host.onCall((call) => {
    const key = call.headers["idempotency-key"];
    if (!key || call.state !== "answered" || firsts.get(key) !== call) return;
    for (const dup of dups.get(key) ?? [])
      dup.respond(200, { order: [...firsts.keys()].indexOf(key) + 1, request: call.n }, { "idempotent-replayed": "true" });
  });
  return w;
}

function Orders({ world }: { world: Replicas }) {
  const { log } = useSyncExternalStore(world.host.subscribe, world.host.getState, world.host.getState);
  const keys = log.map((c) => c.headers["idempotency-key"] ?? "none");
  return (
    <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 14 }} data-testid="orders" data-keys={keys.join(" ")}>
      POSTs received: {log.length} · distinct Idempotency-Keys: {new Set(keys).size}
    </p>
  );
}

function IdempotentPostScenario({ leaseMs }: Args) {
  const world = useDisposable(() => idempotentWorld(leaseMs));
  const asked = useAsked(world.host, "A");
  const done = (ctx: VerdictContext) =>
    settledWithData(ctx, ORDER, 2)
      ? "The POST was sent twice (a takeover), with one Idempotency-Key: the host placed one order and replayed its answer; the first answer home was recorded, the other dropped."
      : undefined;
  return (
    <ScenarioFrame world={world} request={(i) => (i === 0 || asked ? ORDER : null)} verdict={done}>
      <Orders world={world} />
    </ScenarioFrame>
  );
}

export const IdempotentPost: Story = {
  name: "POST after takeover: same Idempotency-Key, one order",
  beforeEach: ({ msw }) => {
    msw.use(...mockedApi());
  },
  render: (args) => <IdempotentPostScenario key={JSON.stringify(args)} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 12. A non-idempotent request carries an Idempotency-Key stable per key and revision. A takeover keeps the revision, so B's duplicate POST carries A's key, and a host that honours the header (IETF httpapi draft) drops the duplicate's side effect. Here the host holds B's duplicate until A's POST is answered and gives it the same answer (order #1), so both answers arrive together. Writebacks are gated on key and revision (invariant 6): the first answer home is written, and the other replica, seeing that result at its own revision, stops its request and drops its answer unread (or, had the answer already come home, writes nothing); the timeline says which replica did which. The POSTs are real fetches to /api/orders, answered through Mock Service Worker: the header is read from the request as sent.",
      },
    },
  },
  play: async ({ canvasElement }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    await expect(await verdict(canvasElement, 40_000)).toMatch(/placed one order/);
    await expect(workerScript()).toMatch(/\/mockServiceWorker\.js$/);
    const keys = (canvas.getByTestId("orders").dataset.keys ?? "").split(" ");
    await expect(keys).toHaveLength(2);
    await expect(keys[0]).not.toBe("none");
    await expect(keys[1]).toBe(keys[0]);
    await expect(narration(canvasElement).filter((l) => /^host placed order/.test(l))).toEqual(["host placed order #1"]);
    // Both answers arrive at once: the timeline says which was written and what became of the other (invariant 6).
    await waitFor(() => {
      const lines = narration(canvasElement);
      const writer = lines.map((l) => /^(A|B) wrote the result of POST \/api\/orders \(rev 1/.exec(l)?.[1]).find(Boolean);
      const other = writer === "A" ? "B" : "A";
      const dropped = new RegExp(
        `^(${other} stopped its own request for POST /api/orders \\(rev 1\\), its answer unread|${other}'s answer for POST /api/orders \\(rev 1\\) came home second and was not written): ${writer}'s result for rev 1 was recorded first`,
      );
      expect(writer).toBeDefined();
      expect(lines.some((l) => dropped.test(l))).toBe(true);
    }, WAIT);
    await waitFor(() => {
      for (const pane of [paneA, paneB]) expect(within(pane).getByTestId("data")).toHaveTextContent('"order": 1');
    }, WAIT);
    await expectNoLies([paneA, paneB]);
  },
};
