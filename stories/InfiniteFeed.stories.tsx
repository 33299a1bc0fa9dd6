import type { Meta, StoryObj } from "@storybook/react-vite";
import { QueryClientProvider, useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useMemo, type CSSProperties } from "react";
import { expect, waitFor, within } from "storybook/test";
import { sharedInfiniteQueryOptions } from "../src/index.ts";
import type { HostCall } from "../sim/host.ts";
import { expectNarrated, expectRequests, findPanes, verdict, WAIT } from "./support/play.ts";
import { PaneRow } from "./support/panes.tsx";
import { createReplicas, shortOf, useDisposable, type Replica, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { delayArg, urlArg } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };
/** One page of the feed: its cursor, its items, the next cursor, and the host call that answered it. */
type FeedPage = { page: number; items: string[]; next: number | null; request: number };

const PAGES = 3;

const meta = {
  title: "Scenarios/Infinite feed",
  args: { delayMs: 600, url: "https://host.example/api/feed" },
  argTypes: { delayMs: delayArg, url: { ...urlArg, description: "The feed's base URL: page n is `${url}/${n}`." } },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/** Page n of the feed, answered from the last segment of the URL the host was sent. */
function respond(call: HostCall): FeedPage {
  const page = Number(new URL(call.url).pathname.split("/").at(-1));
  return { page, items: [`item ${page * 2 + 1}`, `item ${page * 2 + 2}`], next: page < PAGES - 1 ? page + 1 : null, request: call.n };
}

const styles = {
  pane: { border: "1px solid #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif", fontSize: 14 },
  list: { margin: "0.25rem 0 0.75rem", paddingLeft: "1.2rem" },
} satisfies Record<string, CSSProperties>;

/** One tab's feed: `useInfiniteQuery(sharedInfiniteQueryOptions(…))` on its own store and QueryClient. */
function FeedPane({ world, replica, url }: { world: Replicas; replica: Replica; url: string }) {
  const feed = useMemo(
    () =>
      sharedInfiniteQueryOptions(replica.store, (cursor: number) => `${url}/${cursor}`, {
        initialPageParam: 0,
        getNextPageParam: (last: FeedPage) => last.next,
        staleTime: 60_000,
      }),
    [replica.store, url],
  );
  const q = useInfiniteQuery(feed);
  const pages = q.data?.pages ?? [];
  const last = pages.at(-1);
  // Told per page shown, whoever fetched it: a page taken from another tab's record makes no other line.
  useEffect(() => {
    if (last)
      world.narration.add({
        text: `${shortOf(replica.name)} shows page ${last.page} (host answer #${last.request})`,
        replica: shortOf(replica.name),
      });
  }, [world, replica, last]);
  const more = () => {
    world.narration.add({ text: `${shortOf(replica.name)} loads more (page ${pages.length})`, replica: shortOf(replica.name) });
    void q.fetchNextPage();
  };
  return (
    <section
      aria-label={replica.name}
      style={styles.pane}
      data-status={q.status}
      data-pages={pages.map((p) => `${p.page}@${p.request}`).join(" ")}
    >
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{replica.name}</h2>
      <div data-testid="status">
        {q.status}
        {q.isFetchingNextPage ? " (loading more)" : q.isFetching ? " (fetching)" : ""}
      </div>
      <ol style={styles.list} data-testid="pages">
        {pages.map((p) => (
          <li key={p.page}>
            page {p.page}: {p.items.join(", ")} <span style={{ color: "#5a6470" }}>(host answer #{p.request})</span>
          </li>
        ))}
      </ol>
      <button type="button" onClick={more} disabled={!q.hasNextPage || q.isFetchingNextPage}>
        Load more
      </button>
    </section>
  );
}

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
          "`useInfiniteQuery(sharedInfiniteQueryOptions(store, (cursor) => url, …))` in two tabs, each with its own store and QueryClient. Each page is one request across the tabs: both tabs mount the feed at once and the first page is fetched once; both load more at once and the second page is fetched once (B joins A's request in flight); A loads the third page, and B's Load more takes the page A recorded (within the staleTime) with no request. Three pages in two tabs, three host requests, where plain `useInfiniteQuery` sends six.",
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
    await expectNarrated(canvasElement, /^B sees A's claim on \/api\/feed\/1 and waits$/);
    // No page left to load: the feed's getNextPageParam said so in both tabs.
    for (const pane of [paneA, paneB]) await expect(more(pane)).toBeDisabled();
  },
};
