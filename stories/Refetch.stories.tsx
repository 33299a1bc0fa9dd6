import type { Meta, StoryObj } from "@storybook/react-vite";
import { QueryClientProvider, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { sharedMutationFn, sharedQueryKey } from "../src/index.ts";
import type { HostCall } from "../sim/host.ts";
import { expectNarrated, expectNoLies, expectRequests, findPanes, verdict, WAIT } from "./support/play.ts";
import { createReplicas, useDisposable, type Replica, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { allSucceeded, delayArg, urlArg } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };

const meta = {
  title: "Scenarios/Refetch",
  args: { delayMs: 400, url: "https://host.example/api/items" },
  argTypes: { delayMs: delayArg, url: { ...urlArg, description: "The list's URL: a GET reads it, a POST adds an item." } },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/**
 * The list host: a POST adds an item, a GET answers the list with its call number; the second GET
 * (the first refresh) never answers. It counts the GETs in flight at once (`mostAtOnce`).
 */
function createListHost(delayMs: number) {
  const items = ["item 1"];
  let gets = 0;
  const host = Object.assign(
    createSimulatedHost({
      delayMs,
      respond: (call: HostCall) => {
        if (call.method !== "POST") return { items: [...items], request: call.n };
        items.push(`item ${items.length + 1}`);
        return { added: items.at(-1) };
      },
      behaviorFor: (call) => (call.method === "GET" && ++gets === 2 ? "hang" : undefined),
    }),
    { mostAtOnce: 0 },
  );
  host.onCall(() => {
    const now = host.calls.filter((c) => c.method === "GET" && c.state === "in-flight").length;
    host.mostAtOnce = Math.max(host.mostAtOnce, now);
  });
  return host;
}

/** A's "Add an item": useMutation on the store (sharedMutationFn), then invalidateQueries on the list. */
function AddItem({ world, replica, url }: { world: Replicas; replica: Replica; url: string }) {
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: sharedMutationFn(replica.store, () => ({ url, method: "POST", body: "{}" })),
    onSuccess: () => {
      world.narration.add({ text: "A's mutation succeeded: it invalidates the list (invalidateQueries)", replica: "A" });
      return client.invalidateQueries({ queryKey: sharedQueryKey(replica.store, url) });
    },
  });
  const click = () => {
    world.narration.add({ text: "A adds an item (useMutation)", replica: "A" });
    add.mutate();
  };
  return (
    <button type="button" onClick={click} disabled={add.isPending}>
      Add an item in Replica A
    </button>
  );
}

function RefetchScenario({ delayMs, url }: Args) {
  const [host] = useState(() => createListHost(delayMs));
  const world = useDisposable(() => createReplicas({ names: ["Replica A", "Replica B"], host }));
  const [a] = world.replicas;
  const done = ({ state, host: h, summary }: VerdictContext) => {
    const newest = world.host.calls.filter((c) => c.method === "GET").at(-1);
    const shown = state.replicas.every((r) => (r.store.snapshot({ url }).data as { request?: number } | undefined)?.request === newest?.n);
    if (h.aborted === 0 || h.inFlight > 0 || !allSucceeded(state, { url }) || !shown) return undefined;
    return `A's refetch replaced its hung request: ${summary.replace(/^\d+ host requests: /, "")}; every pane shows the list with the new item, and at most ${host.mostAtOnce} request for the list was in flight at any time.`;
  };
  return (
    <ScenarioFrame
      world={world}
      request={url}
      verdict={done}
      controls={
        <QueryClientProvider client={a!.queryClient}>
          <AddItem world={world} replica={a!} url={url} />
        </QueryClientProvider>
      }
    >
      <SharedFetchDevtoolsPanel store={a!.store} initialTab="timeline" style={{ marginTop: "1rem" }} />
    </ScenarioFrame>
  );
}

export const ReplacesHungRequest: Story = {
  name: "A refetch replaces a hung request",
  render: (args) => <RefetchScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 8 and 11. Both panes show the list (one request). A's Refetch sends a refresh the host never answers: both panes stay on the list, pending a newer one. A then adds an item (`useMutation` with `sharedMutationFn`) and invalidates the list in `onSuccess`. That refresh cannot wait for the hung one, which may have read the list before the item was added: A, which holds it, aborts it at the host (reason `refetched`, as TanStack's `cancelRefetch` does) and sends the new one at once, with no gap in its claim. Every pane shows the list with the new item, no pane shows an error, only one request for the list is ever in flight, and A's devtools Timeline says A aborted its request for the list because a refetch sent a newer one.",
      },
    },
  },
  play: async ({ canvasElement, userEvent, args }) => {
    const { canvas, paneA, paneB, panes } = await findPanes(canvasElement);
    const answers = (pane: HTMLElement) => pane.dataset.answersSeen ?? "";
    await waitFor(() => expect([answers(paneA), answers(paneB)]).toEqual(["1", "1"]), WAIT);
    await userEvent.click(within(paneA).getByRole("button", { name: "Refetch" }));
    await waitFor(() => expect(canvas.getByTestId("host-in-flight")).toHaveTextContent("in flight: 1"), WAIT);
    await userEvent.click(canvas.getByRole("button", { name: "Add an item in Replica A" }));
    await expect(await verdict(canvasElement)).toMatch(
      /^A's refetch replaced its hung request: .*1 aborted by A.*at most 1 request for the list/,
    );
    // 1: the list; 2: the refresh that hung; 3: the POST; 4: the refresh after it.
    await expectRequests(canvasElement, 4);
    await expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 1");
    for (const pane of panes) {
      await expect(answers(pane)).toBe("1 4");
      await expect(within(pane).getByTestId("data")).toHaveTextContent(/item 2/);
      await expect(within(pane).getByTestId("error")).toHaveTextContent(/^—$/);
    }
    await expectNoLies(panes);
    await expectNarrated(canvasElement, /^A claimed POST \/api\/items \(rev 1\)$/);
    await expectNarrated(canvasElement, /^A aborted its request for \/api\/items \(rev 2\): a refetch sent a newer one \(rev 3\)$/);
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    // The panel inspects A's store: A is "this tab" there.
    const told = `this tab aborted its request for GET ${args.url} (rev 2): a refetch sent a newer one (rev 3)`;
    await waitFor(() => expect(panel).toHaveTextContent(told), WAIT);
  },
};
