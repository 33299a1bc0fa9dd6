import type { Meta, StoryObj } from "@storybook/react-vite";
import { QueryClientProvider } from "@tanstack/react-query";
import { useMemo, useRef, useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { connectPeers, SharedFetchProvider, sharedQueryKey, sharedQueryOptions } from "../src/index.ts";
import { ListPane, listResponder, type ItemList } from "./support/list-pane.tsx";
import { expectNarrated, expectNoLies, expectRequests, findPanes, narration, verdict, WAIT } from "./support/play.ts";
import { PaneRow } from "./support/panes.tsx";
import { createReplicas, shortOf, useDisposable, type Replica, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, StepButtons, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { InPageSyncServer } from "./support/sync-server.ts";
import { delayArg, urlArg } from "./support/worlds.ts";

type Args = { delayMs: number; refetchDelayMs: number; url: string };

const meta = {
  title: "Scenarios/Devices",
  args: { delayMs: 300, refetchDelayMs: 2500, url: "https://host.example/api/items" },
  argTypes: {
    delayMs: delayArg,
    refetchDelayMs: {
      description: "How long the host takes to answer A's refetch (ms): B comes back online while it is in flight.",
      control: { type: "number", min: 0, step: 100 },
    },
    url: urlArg,
  },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

const NAMES = ["Device A", "Device B"];

/**
 * Two devices on one sync server (in the page: support/sync-server.ts), each with the real
 * `connectPeers`, its own doc, store and QueryClient; the docs share nothing but the server.
 */
function twoDevices({ delayMs, refetchDelayMs }: Args) {
  const server = new InPageSyncServer();
  const room = `devices-${Math.random().toString(36).slice(2, 10)}`;
  const host = createSimulatedHost({
    delayMs,
    respond: listResponder(),
    behaviorFor: (call) => (call.n === 2 ? { behavior: "ok", delayMs: refetchDelayMs } : undefined),
  });
  const world: Replicas = createReplicas({
    names: NAMES,
    host,
    linked: false,
    separateBrowsers: true,
    connect: (doc, i) => {
      const who = shortOf(NAMES[i]!);
      const peers = connectPeers(doc, { url: "wss://sync.example", room, WebSocketPolyfill: server.socketFor(who) });
      // What the provider tells of its socket, in the timeline: when B lost the server, and when it found it again.
      peers.provider.on("status", ({ status }: { status: string }) => {
        if (status === "disconnected") world.narration.add({ text: `${who}'s socket to the sync server closed`, replica: who });
        if (status === "connected") world.narration.add({ text: `${who}'s socket to the sync server opened`, replica: who });
      });
      return peers;
    },
  });
  return {
    world,
    server,
    destroy() {
      world.destroy();
      server.destroy();
    },
  };
}

type Step = "start" | "offline" | "refetched" | "online";

function Device({ world, replica, url }: { world: Replicas; replica: Replica; url: string }) {
  // staleTime 0: TanStack's refetchOnReconnect asks again for any list, as it does by default.
  const options = useMemo(() => sharedQueryOptions<ItemList>(replica.store, url, { staleTime: 0 }), [replica.store, url]);
  return (
    <QueryClientProvider client={replica.queryClient}>
      <SharedFetchProvider store={replica.store}>
        <ListPane world={world} replica={replica} options={options} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

function BackOnlineScenario(args: Args) {
  const { url } = args;
  const { world, server } = useDisposable(() => twoDevices(args));
  const [a, b] = world.replicas;
  const [step, setStep] = useState<Step>("start");
  // The timeline's length when B came back: what B did then is told after it.
  const back = useRef<number | undefined>(undefined);
  const say = (text: string, replica?: string) => world.narration.add({ text, ...(replica ? { replica } : {}) });
  const offline = () => {
    say("B goes offline: its link to the sync server is down, every reconnect refused", "B");
    server.goOffline("B");
    setStep("offline");
  };
  const refetch = () => {
    say("A refetches the list (invalidateQueries)", "A");
    void a!.queryClient.invalidateQueries({ queryKey: sharedQueryKey(a!.store, url).slice(0, 3) });
    setStep("refetched");
  };
  const online = () => {
    back.current = world.narration.texts().length;
    say("B is back online: TanStack's refetchOnReconnect asks at once, before y-websocket's back-off reconnects", "B");
    server.goOnline("B");
    // Each device has its own TanStack onlineManager; in this page, B's is its query cache's onOnline.
    b!.queryClient.getQueryCache().onOnline();
    setStep("online");
  };
  const done = ({ host, summary }: VerdictContext) => {
    if (back.current === undefined || host.inFlight > 0 || host.requests < 2) return undefined;
    const told = world.narration.texts();
    // The newest answer, whoever asked for it: with a duplicate from B, the verdict says so.
    const newest = world.host.calls.filter((c) => c.state === "answered").at(-1)!;
    if (!["A", "B"].every((w) => told.includes(`${w} shows 1 item (host answer #${newest.n})`))) return undefined;
    const after = told.slice(back.current);
    const joined = after.includes("B joined A's request for /api/items (rev 2): sent nothing");
    const sent = world.host.calls.filter((c) => c.from === "B" && c.n > 1).length;
    return `B, back online, ${joined ? "joined A's refetch in flight" : `showed answer #${newest.n}`} and sent ${sent === 0 ? "nothing" : `${sent} request${sent === 1 ? "" : "s"}`}: ${summary}.`;
  };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      controls={
        <StepButtons
          step={step}
          buttons={[
            ["start", "Take device B offline", offline],
            ["offline", "Refetch in device A", refetch],
            ["refetched", "Bring device B back online", online],
          ]}
        />
      }
      panes={
        <PaneRow>
          {world.replicas.map((r) => (
            <Device key={r.replicaId} world={world} replica={r} url={url} />
          ))}
        </PaneRow>
      }
    >
      <SharedFetchDevtoolsPanel store={b!.store} initialTab="timeline" style={{ marginTop: "1rem" }} />
    </ScenarioFrame>
  );
}

export const BackOnlineJoinsTheRequest: Story = {
  name: "Back online joins the request",
  render: (args) => <BackOnlineScenario key={`${args.delayMs} ${args.refetchDelayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 8 across devices. Two devices, each `useQuery(sharedQueryOptions(store, url))` in its own QueryClient, synced only through a y-websocket server by the real `connectPeers` (the server runs in the page). Both show the list: one request. Device B goes offline: its socket closes and every reconnect is refused, so y-websocket backs off. A refetches meanwhile; its request is slow. B comes back online: TanStack's `refetchOnReconnect` asks at once, before y-websocket's next try. B's claim does not go out cut off: the store connects at once and waits for that sync, as a first claim waits for the initial sync, and then sees A's claim: B joins A's request and shows its answer. Two host requests in all, none from B after the first list. Without that wait B, cut off for a while, would claim eagerly and send the list again. B's devtools Timeline shows A's claim, B joining it (\"this tab joined …'s request … (rev 2): sent nothing\") and A's result arriving.",
      },
    },
  },
  play: async ({ canvasElement, userEvent, args }) => {
    const { canvas, paneA, paneB, panes } = await findPanes(canvasElement, NAMES);
    const answers = (pane: HTMLElement) => pane.dataset.answersSeen ?? "";
    const click = (name: string) => userEvent.click(canvas.getByRole("button", { name }));
    await waitFor(() => expect([answers(paneA), answers(paneB)]).toEqual(["1", "1"]), WAIT);
    await expectRequests(canvasElement, 1);
    await click("Take device B offline");
    await expectNarrated(canvasElement, /^B's socket to the sync server closed$/);
    await click("Refetch in device A");
    await waitFor(() => expect(canvas.getByTestId("host-in-flight")).toHaveTextContent("in flight: 1"), WAIT);
    await click("Bring device B back online");
    await expect(await verdict(canvasElement)).toMatch(/^B, back online, joined A's refetch in flight and sent nothing: 2 host requests: /);
    await expectRequests(canvasElement, 2);
    for (const pane of panes) await expect(answers(pane)).toBe("1 2");
    await expectNoLies(panes);
    // B's claim waited for its socket: it opened, then B saw A's claim and joined it.
    const lines = narration(canvasElement);
    const from = lines.findIndex((l) => l.startsWith("B is back online"));
    const opened = lines.indexOf("B's socket to the sync server opened", from);
    const joined = lines.indexOf("B joined A's request for /api/items (rev 2): sent nothing", from);
    await expect(from).toBeGreaterThanOrEqual(0);
    await expect(opened).toBeGreaterThan(from);
    await expect(joined).toBeGreaterThan(opened);
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    await waitFor(() => expect(panel).toHaveTextContent(`claimed GET ${args.url} (rev 2)`), WAIT);
    // B's own panel tells that B sent nothing: it joined A's request (its store's `joined` event).
    await waitFor(
      () => expect(panel).toHaveTextContent(new RegExp(`this tab joined \\S+'s request for GET ${args.url} \\(rev 2\\): sent nothing`)),
      WAIT,
    );
    await waitFor(
      () => expect(within(panel).getAllByText(new RegExp(`wrote the result of GET ${args.url} \\(rev 2`)).length).toBeGreaterThan(0),
      WAIT,
    );
  },
};
