import type { Meta, StoryObj } from "@storybook/react-vite";
import { QueryClientProvider } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { expect, waitFor, within } from "storybook/test";
import { FeedPane, PAGES, respondFeed as respond } from "./support/feed-pane.tsx";
import { expectNarrated, expectRequests, findPanes, verdict, WAIT } from "./support/play.ts";
import { PaneRow } from "./support/panes.tsx";
import { createReplicas, shortOf, useDisposable } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { delayArg, urlArg } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };

const meta = {
  title: "Scenarios/Infinite feed",
  args: { delayMs: 600, url: "https://host.example/api/feed" },
  argTypes: { delayMs: delayArg, url: { ...urlArg, description: "The feed's base URL: page n is `${url}/${n}`." } },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

function InfiniteFeedScenario({ delayMs, url }: Args) {
  const world = useDisposable(() => createReplicas({ names: ["Replica A", "Replica B"], host: createSimulatedHost({ delayMs, respond }) }));
  // Once each pane told it shows the last page: the verdict comes after what led to it.
  const done = ({ host }: VerdictContext) => {
    const told = world.narration.texts();
    const all = world.replicas.every((r) => told.includes(`${shortOf(r.name)} shows page ${PAGES - 1} (host answer #${host.requests})`));
    if (host.inFlight > 0 || !all) return undefined;
    return `Both tabs show the ${PAGES} pages of the feed; the host got ${host.requests} requests, one per page (plain useInfiniteQuery sends each page once per tab: ${PAGES * 2}).`;
  };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      panes={
        <PaneRow>
          {world.replicas.map((r) => (
            <QueryClientProvider key={r.replicaId} client={r.queryClient}>
              <FeedPane world={world} replica={r} url={url} />
            </QueryClientProvider>
          ))}
        </PaneRow>
      }
    />
  );
}

export const OneRequestPerPage: Story = {
  name: "An infinite feed in two tabs: one request per page",
  render: (args) => <InfiniteFeedScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 8, page by page. `useInfiniteQuery(sharedInfiniteQueryOptions(store, (cursor) => url, …))` in two tabs, each with its own store and QueryClient. Each page is one request across the tabs: both tabs mount the feed at once and the first page is fetched once; both load more at once and the second page is fetched once (B joins A's request in flight); A loads the third page, and B's Load more takes the page A recorded (within the staleTime) with no request. Three pages in two tabs, three host requests, where plain `useInfiniteQuery` sends six.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { paneA, paneB } = await findPanes(canvasElement);
    const more = (pane: HTMLElement) => within(pane).getByRole("button", { name: "Load more" });
    const pagesOf = (pane: HTMLElement) => pane.dataset.pages ?? "";
    await waitFor(() => {
      expect(pagesOf(paneA)).toBe("0@1");
      expect(pagesOf(paneB)).toBe("0@1");
    }, WAIT);
    await expectRequests(canvasElement, 1);
    // Both at once: the second click lands while the first one's page is at the host.
    await waitFor(() => expect(more(paneB)).toBeEnabled(), WAIT);
    await userEvent.click(more(paneA));
    await userEvent.click(more(paneB));
    await waitFor(() => {
      expect(pagesOf(paneA)).toBe("0@1 1@2");
      expect(pagesOf(paneB)).toBe("0@1 1@2");
    }, WAIT);
    await expectRequests(canvasElement, 2);
    await waitFor(() => expect(more(paneA)).toBeEnabled(), WAIT);
    await userEvent.click(more(paneA));
    await waitFor(() => expect(pagesOf(paneA)).toBe("0@1 1@2 2@3"), WAIT);
    await waitFor(() => expect(more(paneB)).toBeEnabled(), WAIT);
    await userEvent.click(more(paneB));
    await expect(await verdict(canvasElement)).toMatch(/the host got 3 requests, one per page/);
    await expect(pagesOf(paneB)).toBe("0@1 1@2 2@3");
    await expectRequests(canvasElement, 3);
    await expectNarrated(canvasElement, /^B joined A's request for \/api\/feed\/1 \(rev 1\): sent nothing$/);
    // No page left to load: the feed's getNextPageParam said so in both tabs.
    for (const pane of [paneA, paneB]) await expect(more(pane)).toBeDisabled();
  },
};

// ---------------------------------------------------------------- fresh across tabs

function FreshAcrossTabsScenario({ delayMs, url }: Args) {
  const world = useDisposable(() => createReplicas({ names: ["Replica A", "Replica B"], host: createSimulatedHost({ delayMs, respond }) }));
  const state = useSyncExternalStore(world.subscribe, world.getSnapshot, world.getSnapshot);
  const [, b] = world.replicas;
  const reload = () => {
    world.close(b!);
    world.reload(b!, "Replica B2");
  };
  // Once the reloaded tab told it shows the refreshed pages: the verdict comes after what led to it.
  const done = ({ host }: VerdictContext) => {
    const told = world.narration.texts();
    if (host.inFlight > 0 || !told.includes(`B2 shows page 1 (host answer #${host.requests})`)) return undefined;
    const after = world.host.calls.slice(2);
    const by = [...new Set(after.map((c) => c.from))].join(", ");
    return `A's refresh sent ${after.length} requests (by ${by}); B showed its pages at once with none of its own, and B's reload showed them before any fetch: ${host.requests} host requests in all.`;
  };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      controls={
        <button type="button" onClick={reload} disabled={state.replicas.length > 2}>
          Reload Replica B
        </button>
      }
      panes={
        <PaneRow>
          {state.replicas
            .filter((r) => !state.closed.has(r.replicaId))
            .map((r) => (
              <QueryClientProvider key={r.replicaId} client={r.queryClient}>
                <FeedPane world={world} replica={r} url={url} />
              </QueryClientProvider>
            ))}
        </PaneRow>
      }
    />
  );
}

export const FreshAcrossTabs: Story = {
  name: "A refresh in one tab: the other shows the newer pages, and so does its reload",
  render: (args) => <FreshAcrossTabsScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "No invariant: freshness shared across tabs, page by page. Both tabs show two pages of the feed. Tab A's Refresh (`invalidateQueries` on the feed's key) asks every page anew: two requests, both A's. Tab B shows the newer pages as soon as the last of them is recorded, all at once (never page 0 of the refresh beside page 1 of the load before it), with no request of its own. Then B is reloaded: the new tab shows the recorded pages on its first render, as a persister's restore would, and sends nothing (they are fresh by the staleTime).",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB } = await findPanes(canvasElement);
    const button = (pane: HTMLElement, name: string) => within(pane).getByRole("button", { name });
    const pagesOf = (pane: HTMLElement) => pane.dataset.pages ?? "";
    await waitFor(() => expect(button(paneA, "Load more")).toBeEnabled(), WAIT);
    await userEvent.click(button(paneA, "Load more"));
    await waitFor(() => expect(pagesOf(paneA)).toBe("0@1 1@2"), WAIT);
    await userEvent.click(button(paneB, "Load more"));
    await waitFor(() => expect(pagesOf(paneB)).toBe("0@1 1@2"), WAIT);
    await expectRequests(canvasElement, 2);
    await userEvent.click(button(paneA, "Refresh"));
    await waitFor(() => expect(pagesOf(paneB)).toBe("0@3 1@4"), WAIT);
    await expect(pagesOf(paneA)).toBe("0@3 1@4");
    await expectRequests(canvasElement, 4);
    // Whole: B went from the first load's pages to the refresh's, with no mix of the two between.
    await expect(paneB.dataset.pagesSeen).toBe("0@1 > 0@1 1@2 > 0@3 1@4");
    await userEvent.click(canvas.getByRole("button", { name: "Reload Replica B" }));
    const { paneB: reloaded } = await findPanes(canvasElement, ["Replica A", "Replica B2"]);
    await expect(reloaded.dataset.firstPages).toBe("0@3 1@4");
    await expect(await verdict(canvasElement)).toMatch(/^A's refresh sent 2 requests \(by A\); .*: 4 host requests in all\.$/);
    await expectRequests(canvasElement, 4);
    await expectNarrated(canvasElement, /^B2 opened \(a reload of B: a new replica, same persisted doc\)$/);
  },
};
