import type { Meta, StoryObj } from "@storybook/react-vite";
import { QueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import { SharedFetchDevtools, useDevtoolsModel } from "../devtools/production.ts";
import { createSharedFetchStore, type SharedFetchStore } from "../src/index.ts";
import { createLinkedDocs } from "./support/linked-docs.ts";
import { HostCounter, ReplicaPanes } from "./support/panes.tsx";
import { useDisposable, type Replica } from "./support/replicas.ts";
import { createSimulatedHost, type SimulatedHost } from "./support/simulated-host.ts";

type ScenarioProps = {
  /** How long the simulated host takes to answer, in ms. */
  delayMs: number;
  /** What both panes ask for (the simulated host answers any URL). */
  url: string;
};

const LINK = "story-link";

/**
 * Like createReplicas, plus presence: each store gets an awareness, and the awarenesses are wired
 * to each other as a provider would. Without it a replica that holds no claim is invisible to the
 * others' panels (it writes nothing to the doc).
 */
function createWorld(host: SimulatedHost) {
  const linked = createLinkedDocs(2);
  const awareness = linked.docs.map((doc) => new Awareness(doc));
  for (const from of awareness) {
    from.on("update", (changes: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      if (origin === LINK) return;
      const update = encodeAwarenessUpdate(from, [...changes.added, ...changes.updated, ...changes.removed]);
      for (const to of awareness) if (to !== from) applyAwarenessUpdate(to, update, LINK);
    });
  }
  const replicas = ["Replica A", "Replica B"].map((name, i): Replica => {
    const replicaId = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const doc = linked.docs[i]!;
    const store = createSharedFetchStore({ doc, replicaId, fetch: host.fetch, awareness: awareness[i] });
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
    return { name, replicaId, doc, store, queryClient };
  });
  return {
    replicas,
    awareness,
    destroy() {
      for (const r of replicas) {
        r.store.destroy();
        r.queryClient.clear();
      }
      linked.destroy(); // destroys the docs, and with them their awarenesses
    },
  };
}

/**
 * Every holder the panel's model showed for the first key, in order: the play function checks this
 * history after the fact instead of racing to catch the claim on a busy machine.
 */
function HolderHistory({ store, awareness }: { store: SharedFetchStore; awareness: Awareness }) {
  const snapshot = useDevtoolsModel(store, awareness);
  const seen = useRef<string[]>([]);
  const row = snapshot.keys[0];
  const holder = row ? (row.claim?.replicaId ?? "none") : "no key";
  if (seen.current.at(-1) !== holder) seen.current.push(holder); // eslint-disable-line react-hooks/refs
  const history = seen.current.join(" > "); // eslint-disable-line react-hooks/refs
  return (
    <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 13 }} data-testid="holders-seen" data-value={history}>
      Holders of the key seen by Replica A&apos;s panel: {history}
    </p>
  );
}

/** Two replicas share one request; Replica A's devtools panel shows the claim, then the result. */
function DevtoolsScenario({ delayMs, url }: ScenarioProps) {
  const [host] = useState(() => createSimulatedHost({ delayMs }));
  const world = useDisposable(() => createWorld(host));
  const [first] = world.replicas;
  return (
    <div>
      <HostCounter host={host} />
      <ReplicaPanes replicas={world.replicas} request={url} />
      <HolderHistory store={first!.store} awareness={world.awareness[0]!} />
      <SharedFetchDevtools store={first!.store} awareness={world.awareness[0]} initialIsOpen />
    </div>
  );
}

const meta = {
  title: "Devtools/Panel",
  component: DevtoolsScenario,
  args: { delayMs: 1500, url: "https://host.example/api/greeting" },
  argTypes: {
    delayMs: { control: { type: "number", min: 0, step: 100 } },
    url: { control: "text" },
  },
  // A fresh world (docs, stores, host) whenever an arg changes.
  render: (args) => <DevtoolsScenario key={`${args.delayMs} ${args.url}`} {...args} />,
} satisfies Meta<typeof DevtoolsScenario>;

export default meta;
type Story = StoryObj<typeof meta>;

/** The key's holder goes from the fetching replica to none, its result rev becomes 1, and both replicas are listed. */
export const ClaimThenResult: Story = {
  name: "Devtools: one key, claimed then recorded",
  play: async ({ canvasElement, args, userEvent }) => {
    const canvas = within(canvasElement);
    // Generous waits: a cold or busy test browser can take seconds to render the first frame.
    const keysTab = await canvas.findByRole("tab", { name: /^Keys/ }, { timeout: 15_000 });
    await expect(keysTab).toHaveAttribute("aria-selected", "true");
    await waitFor(
      () => {
        const rows = canvas.getAllByTestId("key-row");
        expect(rows).toHaveLength(1);
        expect(rows[0]).toHaveAttribute("data-holder", "none");
        expect(rows[0]).toHaveAttribute("data-result-rev", "1");
      },
      { timeout: args.delayMs + 15_000 },
    );
    await expect(within(canvas.getByTestId("key-row")).getByTestId("holder")).toHaveTextContent(/^none$/);
    // While the host worked, exactly one replica held the claim, and then nobody did.
    const history = (canvas.getByTestId("holders-seen").dataset.value ?? "").split(" > ");
    const holders = history.filter((h) => h !== "no key" && h !== "none");
    expect([["replica-a"], ["replica-b"]]).toContainEqual(holders);
    await expect(history.at(-1)).toBe("none");
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/);

    await userEvent.click(canvas.getByRole("tab", { name: /^Replicas/ }));
    await expect(canvas.getByRole("tab", { name: /^Replicas/ })).toHaveAttribute("aria-selected", "true");
    await waitFor(
      () => {
        const rows = canvas.getAllByTestId("replica-row");
        expect(rows.map((r) => [r.dataset.replicaId, r.dataset.present])).toEqual([
          ["replica-a", "true"],
          ["replica-b", "true"],
        ]);
      },
      { timeout: 15_000 },
    );
  },
};
