import type { Meta, StoryObj } from "@storybook/react-vite";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { sharedMutationFn, sharedQueryKey } from "../src/index.ts";
import { ListTab, listResponder } from "./support/list-pane.tsx";
import { A_STAYS_OPEN, EVERY_TAB_RELOADS, ResumeScenario } from "./support/offline-resume.tsx";
import { playOfflineResume } from "./support/offline-resume-play.ts";
import { OptimisticScenario } from "./support/optimistic-tabs.tsx";
import {
  expectNarrated,
  expectNarrationInside,
  expectNoLies,
  expectRequests,
  findPanes,
  narration,
  verdict,
  WAIT,
} from "./support/play.ts";
import { PaneRow } from "./support/panes.tsx";
import { createReplicas, useDisposable, type Replica, type Replicas } from "./support/replicas.ts";
import { ScenarioFrame, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { delayArg, urlArg } from "./support/worlds.ts";

type Args = { delayMs: number; url: string };

const meta = {
  title: "Scenarios/TanStack Query",
  args: { delayMs: 400, url: "https://host.example/api/items" },
  argTypes: { delayMs: delayArg, url: { ...urlArg, description: "The list's URL: a GET reads it, a POST adds an item." } },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/**
 * Tab A's "Add an item": `useMutation` with `sharedMutationFn`, whose `onSuccess` invalidates the
 * list's prefix (`["shared-fetch", "GET", url]`), as an app invalidates every query of a resource.
 */
function AddItem({ world, replica, url }: { world: Replicas; replica: Replica; url: string }) {
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: sharedMutationFn(replica.store, () => ({ url, method: "POST", body: JSON.stringify({ name: "new" }) })),
    onSuccess: () => {
      const prefix = sharedQueryKey(replica.store, url).slice(0, 3);
      world.narration.add({ text: `A's mutation succeeded: invalidateQueries on ${JSON.stringify(prefix)}`, replica: "A" });
      return client.invalidateQueries({ queryKey: prefix });
    },
  });
  const click = () => {
    world.narration.add({ text: "A adds an item (useMutation)", replica: "A" });
    add.mutate();
  };
  return (
    <p style={{ margin: "0.75rem 0 0" }}>
      <button type="button" onClick={click} disabled={add.isPending}>
        Add an item
      </button>
    </p>
  );
}

function MutationScenario({ delayMs, url }: Args) {
  const world = useDisposable(() =>
    createReplicas({ names: ["Replica A", "Replica B"], host: createSimulatedHost({ delayMs, respond: listResponder() }) }),
  );
  const [a, b] = world.replicas;
  // Once both panes told they show the list the POST changed: the verdict comes after what led to it.
  const done = ({ host, summary }: VerdictContext) => {
    const post = world.host.calls.find((c) => c.method === "POST");
    const after = world.host.calls.filter((c) => c.method === "GET" && post && c.n > post.n);
    const told = world.narration.texts();
    const shown = after.length > 0 && ["A", "B"].every((w) => told.includes(`${w} shows 2 items (host answer #${after.at(-1)!.n})`));
    if (host.inFlight > 0 || !shown) return undefined;
    const by = [...new Set(after.map((c) => c.from))].join(", ");
    return `A's mutation invalidated the list: ${after.length} request for it after the POST (by ${by}), and both tabs show the new list; ${summary}.`;
  };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      panes={
        <PaneRow>
          <ListTab world={world} replica={a!} url={url}>
            <AddItem world={world} replica={a!} url={url} />
          </ListTab>
          <ListTab world={world} replica={b!} url={url} />
        </PaneRow>
      }
    >
      <SharedFetchDevtoolsPanel store={a!.store} initialTab="timeline" style={{ marginTop: "1rem" }} />
    </ScenarioFrame>
  );
}

export const MutationInvalidatesEveryTab: Story = {
  name: "Mutation invalidates every tab",
  render: (args) => <MutationScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 8 and 12. Two tabs, each `useQuery(sharedQueryOptions(store, url))` of a list in its own QueryClient. Both mount at once: one request for the list. Tab A adds an item with `useMutation({ mutationFn: sharedMutationFn(store, …) })` (one POST, with its Idempotency-Key) and, in `onSuccess`, `invalidateQueries` on the list's prefix `[\"shared-fetch\", \"GET\", url]`. Only A's QueryClient is invalidated, and A's list refetches: one request. Tab B shows the new list too, with no request of its own: the result A recorded reaches B's query through the shared doc. Plain `queryOptions` would send the list once per tab, and B would keep the old list until its own staleTime ran out. A's devtools Timeline tells who claimed the POST and each revision of the list.",
      },
    },
  },
  play: async ({ canvasElement, userEvent, args }) => {
    const { canvas, paneA, paneB, panes } = await findPanes(canvasElement);
    const answers = (pane: HTMLElement) => pane.dataset.answersSeen ?? "";
    await waitFor(() => expect([answers(paneA), answers(paneB)]).toEqual(["1", "1"]), WAIT);
    await expectRequests(canvasElement, 1);
    await userEvent.click(within(paneA).getByRole("button", { name: "Add an item" }));
    await expect(await verdict(canvasElement)).toMatch(
      /^A's mutation invalidated the list: 1 request for it after the POST \(by A\), .*; 3 host requests: /,
    );
    // 1: the list; 2: the POST; 3: the list after it, for both tabs.
    await expectRequests(canvasElement, 3);
    for (const pane of panes) {
      await expect(answers(pane)).toBe("1 3");
      await expect(within(pane).getByTestId("items")).toHaveTextContent(/item 1\s*item 2/);
      await expect(within(pane).getByTestId("error")).toHaveTextContent(/^—$/);
      // Named where it shows: a bare "—" under the list did not say it was the error.
      await expect(within(pane).getByTestId("error").parentElement).toHaveTextContent(/^error: —$/);
      // TanStack's status · fetchStatus, and the list's age: fresh within the tabs' minute of staleTime.
      await expect(within(pane).getByTestId("status")).toHaveTextContent(/^success · idle$/);
      await expect(within(pane).getByTestId("updated")).toHaveTextContent(/^\d+\.\d s ago · fresh$/);
    }
    await expectNoLies(panes);
    await expectNarrated(canvasElement, /^A claimed POST \/api\/items \(rev 1\)$/);
    await expectNarrated(canvasElement, /^A claimed \/api\/items \(rev 2\)$/);
    // The line quoting the invalidated query key, one long word, wraps inside the timeline.
    await expectNarrated(canvasElement, /^A's mutation succeeded: invalidateQueries on \["shared-fetch","GET",/);
    expectNarrationInside(canvasElement);
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    // The panel inspects A's store: A is "this tab" there.
    for (const told of [`this tab claimed POST ${args.url} (rev 1)`, `this tab claimed GET ${args.url} (rev 2)`])
      await waitFor(() => expect(panel).toHaveTextContent(told), WAIT);
  },
};

// ---------------------------------------------------------------- optimistic update in two tabs

export const OptimisticUpdateInTwoTabs: Story = {
  name: "Optimistic update in two tabs",
  render: (args) => <OptimisticScenario key={`${args.delayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 8. TanStack's optimistic update recipe in two tabs, each `useQuery(sharedQueryOptions(store, url))` of a list in its own QueryClient, each adding with `useMutation({ mutationFn: sharedMutationFn(store, …) })`: `onMutate` cancels the list query (`cancelQueries`) and sets the list with the new item (`setQueryData`), `onError` rolls back to the list it replaced, `onSettled` invalidates the list. A adds apples: A shows it at once, then one POST and one refetch after it, A's, whose answer B shows with no request of its own. The next POST fails: A shows bread, then rolls back; B never shows it and keeps its list. Then both add at once, and the host holds B's POST: A's add settles and its refetch is recorded, yet B keeps showing its pending dates (a list without them waits while B's add runs, as in one tab the recipe's `cancelQueries` keeps it out) until its own add settles and refetches. Each pane logs every list it showed, in order; B never shows an older list after a newer one. Plain `queryOptions` would refetch once per tab, and B would not see A's item until its own staleTime ran out (`test/react/optimistic-list-side-by-side.test.tsx`).",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const { canvas, paneA, paneB, panes } = await findPanes(canvasElement);
    const lists = (pane: HTMLElement) => [...within(pane).getByTestId("shown").querySelectorAll("li")].map((li) => li.textContent);
    const expectLists = (a: string[], b: string[]) => waitFor(() => expect([lists(paneA), lists(paneB)]).toEqual([a, b]), WAIT);
    const methods = (text: string) => waitFor(() => expect(canvas.getByTestId("host-methods")).toHaveTextContent(text), WAIT);
    const click = async (name: string) => {
      const button = canvas.getByRole("button", { name });
      await waitFor(() => expect(button).toBeEnabled(), WAIT);
      await userEvent.click(button);
    };
    const one = ["item 1 (#1)"];
    await expectLists(one, one);
    await methods("POSTs: 0 · GETs: 1");
    // #2: A's POST; #3: its onSettled refetch, whose answer B shows too.
    await click("A adds apples");
    const aApples = [...one, "item 1, apples (onMutate)", "item 1, apples (#3)"];
    const bApples = [...one, "item 1, apples (#3)"];
    await expectLists(aApples, bApples);
    await methods("POSTs: 1 · GETs: 2");
    // #4: the POST that fails; A rolls back to answer #3, then refetches (#5); B never shows bread.
    await click("Fail the next POST");
    await click("A adds bread");
    const aBread = [...aApples, "item 1, apples, bread (onMutate)", "item 1, apples (#3)", "item 1, apples (#5)"];
    const bBread = [...bApples, "item 1, apples (#5)"];
    await expectLists(aBread, bBread);
    await methods("POSTs: 2 · GETs: 3");
    await expectNarrated(canvasElement, /^A's add of bread failed: onError rolls its list back$/);
    // Both add at once (#6, #7); A's add settles, refetched (#8), while B's POST is held.
    await click("A adds cheese, B adds dates (B's POST held)");
    await waitFor(() => expect(lists(paneA).at(-1)).toBe("item 1, apples, cheese (#8)"), WAIT);
    await click("Answer B's POST");
    await expect(await verdict(canvasElement)).toMatch(
      /^4 POSTs \(1 failed\), 4 refetches after them for both tabs; B never showed an older list after a newer one, never showed A's rolled-back bread, and kept its pending dates until its own add settled; 9 host requests: /,
    );
    // B's pending dates stayed shown until its own add settled and refetched (#9): never the list of #8.
    const all = "item 1, apples, cheese, dates (#9)";
    await expectLists(
      [...aBread, "item 1, apples, cheese (onMutate)", "item 1, apples, cheese (#8)", all],
      [...bBread, "item 1, apples, dates (onMutate)", all],
    );
    await methods("POSTs: 4 · GETs: 5");
    for (const pane of panes) await expect(within(pane).getByTestId("error")).toHaveTextContent(/^—$/);
    await expectNoLies(panes);
    // Each add is a key of its own, all POSTing to one URL: the timeline names each by its path and
    // its key's short hash ("POST /api/items · 3fa9c2d1"), never by the hash alone.
    await expectNarrated(canvasElement, /^B claimed POST \/api\/items · [0-9a-f]{8} \(rev 1\)$/);
    await expect(narration(canvasElement).filter((line) => /POST [0-9a-f]{8}\b/.test(line))).toEqual([]);
  },
};

// ---------------------------------------------------------------- offline mutation resumed in every tab

export const OfflineMutationResumedInEveryTab: Story = {
  name: "Offline mutation resumed in every tab",
  render: (args) => <ResumeScenario key={`${args.delayMs} ${args.url}`} {...args} plan={EVERY_TAB_RELOADS} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 12. Three tabs of one browser, each `useQuery(sharedQueryOptions(store, url))` of a list in a QueryClient that `PersistQueryClientProvider` saves to one async storage every tab shares. The browser goes offline and tab A adds an item: `useMutation` pauses it and A's persister saves it. Every tab reloads: each is a new replica with a new QueryClient, which the persister restores from that storage, paused mutation included, and each calls `resumePausedMutations()` (offline, nothing is sent). Back online, every tab resumes it at once through its `mutationFn`, a `sharedMutationFn` given with `setMutationDefaults` (as TanStack requires for a restored mutation): the first tab claims the POST and the others join it, one POST with one Idempotency-Key, and each tab's `onSuccess` invalidates the list, refetched once for all. Plain TanStack sends the POST once per tab. Every pane shows the new item; the devtools Timeline (tab A's) shows the one claim of the POST and its result. A tab that resumed it only after that POST was answered would get its recorded outcome: `sharedMutationFn` names a restored call by its `mutationKey` and `submittedAt`, alike in every tab (`test/react/persister-resumed-mutation.test.tsx`)",
      },
    },
  },
  play: ({ canvasElement, userEvent, args }) =>
    playOfflineResume(
      canvasElement,
      userEvent,
      args.url,
      EVERY_TAB_RELOADS,
      /^The paused mutation, restored and resumed in 3 tabs, reached the host as 1 POST \(by [ABC]2, 1 Idempotency-Key\), and every tab shows the new item; /,
    ),
};

// ---------------------------------------------------------------- paused in an open tab, restored in another

export const PausedInAnOpenTabRestoredInAnother: Story = {
  name: "Paused in an open tab, restored in another",
  render: (args) => <ResumeScenario key={`${args.delayMs} ${args.url}`} {...args} plan={A_STAYS_OPEN} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 12. Two tabs of one browser, each `useQuery(sharedQueryOptions(store, url))` of a list in a QueryClient that `PersistQueryClientProvider` saves to one async storage both tabs share. The browser goes offline and tab A adds an item: `useMutation` pauses it before its first run and A's persister saves it. A stays open; tab B reloads: a new replica with a new QueryClient, which the persister restores from that storage, paused mutation included. Back online, both QueryClients resume it: A the call it paused, B2 the copy it restored, each through its `sharedMutationFn` (given with `setMutationDefaults`). `sharedMutationFn` names a call it saw pause before its first run by its `mutationKey` and `submittedAt`, as it names the restored copy, so both tabs ask for the same call: the first claims the POST and the other joins it, one POST with one Idempotency-Key, and each tab's `onSuccess` invalidates the list, refetched once for both. Plain TanStack sends the POST twice, once per tab (`test/react/persister-open-tab-mutation.test.tsx`). Both panes show the new item; the devtools Timeline (tab A's) shows the one claim of the POST and its result.",
      },
    },
  },
  play: ({ canvasElement, userEvent, args }) =>
    playOfflineResume(
      canvasElement,
      userEvent,
      args.url,
      A_STAYS_OPEN,
      /^The mutation paused in A \(still open\) and restored in B2, resumed in 2 tabs, reached the host as 1 POST \(by (A|B2), 1 Idempotency-Key\), and every tab shows the new item; /,
    ),
};
