import type { Meta, StoryObj } from "@storybook/react-vite";
import { useEffect, useState } from "react";
import { expect, waitFor, within } from "storybook/test";
import { SharedFetchDevtoolsPanel } from "../devtools/production.ts";
import { sharedQueryKey } from "../src/index.ts";
import { expectOneLine, expectWithin, expectWordsWhole } from "./support/layout.ts";
import { listResponder } from "./support/list-pane.tsx";
import { expectNarrated, expectNoLies, expectRequests, findPanes, verdict, WAIT } from "./support/play.ts";
import { PaneRow, useHostState } from "./support/panes.tsx";
import { createReplicas, useDisposable, type Replicas } from "./support/replicas.ts";
import { RetryTab } from "./support/retry-pane.tsx";
import { ScenarioFrame, StepButtons, type VerdictContext } from "./support/scenario.tsx";
import { createSimulatedHost } from "./support/simulated-host.ts";
import { delayArg, urlArg, useAsked } from "./support/worlds.ts";

type Args = { delayMs: number; retryDelayMs: number; url: string };

/** TanStack's `retry: 2`: up to 3 attempts, all in the claimant's claim. */
const RETRY = 2;

const meta = {
  title: "Scenarios/Retries",
  args: { delayMs: 400, retryDelayMs: 300, url: "https://host.example/api/items" },
  argTypes: {
    delayMs: delayArg,
    retryDelayMs: {
      description: "TanStack's `retryDelay` given to `sharedQueryOptions` (ms): the claimant waits this long before each retry.",
      control: { type: "number", min: 0, step: 100 },
    },
    url: urlArg,
  },
} satisfies Meta<Args>;
export default meta;
type Story = StoryObj<Args>;

/**
 * Tells each failure the host answered as the claimant's retryer takes it: a retry after
 * `retryDelay`, or the last attempt, whose error is recorded once. Attempts are counted from the
 * sender's failures in a row to that URL (a success before them starts a new sequence).
 */
function useRetriesNarrated(world: Replicas, retryDelayMs: number): void {
  useEffect(
    () =>
      world.host.onCall((call) => {
        if (call.state !== "answered" || call.status === undefined || call.status < 400) return;
        let failed = 0;
        for (const c of world.host.calls.filter((c) => c.from === call.from && c.url === call.url && c.n <= call.n).reverse())
          if (c.status !== undefined && c.status >= 400) failed++;
          else break;
        const text =
          failed <= RETRY
            ? `${call.from}'s request failed (HTTP ${call.status}): ${call.from} retries in ${retryDelayMs} ms, inside its claim (attempt ${failed + 1} of ${RETRY + 1})`
            : `${call.from}'s last attempt failed (HTTP ${call.status}): its error is recorded once, for every tab`;
        world.narration.add({ text, replica: call.from });
      }),
    [world, retryDelayMs],
  );
}

const told = (world: Replicas, text: string) => world.narration.texts().includes(text);
const toldStart = (world: Replicas, start: string) => world.narration.texts().some((t) => t.startsWith(start));

// ---------------------------------------------------------------- a host that recovers

function RecoveringScenario({ delayMs, retryDelayMs, url }: Args) {
  const world = useDisposable(() =>
    createReplicas({
      names: ["Replica A", "Replica B"],
      // Down for the first two calls, then the list.
      host: createSimulatedHost({ delayMs, respond: listResponder(), behaviorFor: (call) => (call.n <= 2 ? "unavailable" : undefined) }),
    }),
  );
  useRetriesNarrated(world, retryDelayMs);
  const [a, b] = world.replicas;
  // B asks once A's request is at the host, so that A is the claimant whatever the machine's timing.
  const asked = useAsked(world.host, "A");
  const done = ({ host, summary }: VerdictContext) => {
    const calls = world.host.calls;
    const last = calls.at(-1);
    if (host.inFlight > 0 || last?.status !== 200) return undefined;
    if (!["A", "B"].every((w) => told(world, `${w} shows 1 item (host answer #${last.n})`))) return undefined;
    const bSent = calls.filter((c) => c.from === "B").length;
    const bCounted = [1, 2].every((n) => toldStart(world, `B shows failureCount ${n}, having sent nothing`));
    return `A's request failed twice and A retried inside its claim; B showed the same failureCount${bCounted ? ", 1 then 2," : " (not all of it)"} and sent ${bSent === 0 ? "nothing" : `${bSent} request${bSent === 1 ? "" : "s"}`}: ${calls.length} requests in all (a plain useQuery in each tab: ${2 * (RETRY + 1)}), and both show the data; ${summary}.`;
  };
  const tab = { world, url, retry: RETRY, retryDelay: retryDelayMs };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      panes={
        <PaneRow>
          <RetryTab {...tab} replica={a!} />
          <RetryTab {...tab} replica={b!} enabled={asked} />
        </PaneRow>
      }
    >
      <SharedFetchDevtoolsPanel store={b!.store} style={{ marginTop: "1rem" }} />
    </ScenarioFrame>
  );
}

export const RetriesShownInEveryTab: Story = {
  name: "Retries in the claimant, shown in every tab",
  render: (args) => <RecoveringScenario key={`${args.delayMs} ${args.retryDelayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 7 and 8. Two tabs, each `useQuery(sharedQueryOptions(store, url, { retry: 2, retryDelay }))` in its own QueryClient; the host answers HTTP 503 twice, then the list. A claims the request and B joins the claim. A's request fails and A retries inside its claim, after `retryDelay`, as TanStack's retryer would: B stays pending, and the claim records the count and the last failure, so B shows the same `failureCount` (1, then 2) and `failureReason` as A, with no request of its own. The host sees one sequence of attempts: 3 requests in all, where a plain `useQuery` in each tab would send 6. Then both show the data, `failureCount` back to 0. B's devtools panel shows the claim's retries by its holder while they run (`test/react/joined-failure-count.test.tsx`).",
      },
    },
  },
  play: async ({ canvasElement }) => {
    await expect(await verdict(canvasElement)).toMatch(
      /^A's request failed twice and A retried inside its claim; B showed the same failureCount, 1 then 2, and sent nothing: 3 requests in all \(a plain useQuery in each tab: 6\), and both show the data; 3 host requests: 2 503 to A, 1 by A\.$/,
    );
    await expectRequests(canvasElement, 3);
    // Found now: B's pane was a placeholder until A's request reached the host.
    const { canvas, panes } = await findPanes(canvasElement);
    for (const pane of panes) {
      // Each count in order, and back to 0 with the data, as TanStack's retryer shows them.
      await expect(pane).toHaveAttribute("data-failures-seen", "0 1 2 0");
      await expect(pane).toHaveAttribute("data-answers-seen", "3");
      await expect(within(pane).getByTestId("items")).toHaveTextContent(/^item 1 \(host answer #3\)$/);
      await expect(within(pane).getByTestId("failure-reason")).toHaveTextContent(/^—$/);
      await expect(within(pane).getByTestId("error")).toHaveTextContent(/^—$/);
    }
    await expectNoLies(panes);
    await expectNarrated(canvasElement, /^A's request failed \(HTTP 503\): A retries in 300 ms, inside its claim \(attempt 2 of 3\)$/);
    for (const n of [1, 2]) {
      await expectNarrated(canvasElement, new RegExp(`^A shows failureCount ${n}: HTTP 503 Service Unavailable from GET `));
      await expectNarrated(
        canvasElement,
        new RegExp(`^B shows failureCount ${n}, having sent nothing: HTTP 503 Service Unavailable from GET `),
      );
    }
    // The claim is finished: B's panel names no retries any more.
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    await waitFor(() => expect(within(panel).queryByTestId("retries")).toBeNull(), WAIT);
  },
};

// ---------------------------------------------------------------- a host that keeps failing

type Step = "loading" | "loaded" | "refetching" | "failing" | "opened";

function FailingScenario({ delayMs, retryDelayMs, url }: Args) {
  const world = useDisposable(() => {
    const host = createSimulatedHost({ delayMs, respond: listResponder() });
    // HTTP 503 from the step "The host goes down" on, to the end.
    const goDown = () => void (host.behavior = "unavailable");
    return Object.assign(createReplicas({ names: ["Replica A", "Replica B"], host }), { goDown });
  });
  useRetriesNarrated(world, retryDelayMs);
  const [a, b] = world.replicas;
  const { log } = useHostState(world.host);
  const [refetched, setRefetched] = useState(false);
  const [opened, setOpened] = useState(false);
  const step: Step = !refetched
    ? log.some((c) => c.status === 200)
      ? "loaded"
      : "loading"
    : opened
      ? "opened"
      : log.some((c) => c.status === 503)
        ? "failing"
        : "refetching";
  const goDown = () => {
    world.goDown();
    world.narration.add({ text: "The host goes down (HTTP 503 from now on); A refetches the list (refetchQueries)", replica: "A" });
    setRefetched(true);
    void a!.queryClient.refetchQueries({ queryKey: sharedQueryKey(a!.store, url) });
  };
  const open = () => {
    world.narration.add({ text: "B opens the list, while A's claim retries", replica: "B" });
    setOpened(true);
  };
  const done = ({ host, summary }: VerdictContext) => {
    if (host.inFlight > 0 || !["A", "B"].every((w) => toldStart(world, `${w} shows the error after the last attempt: `))) return undefined;
    const calls = world.host.calls;
    const failed = calls.filter((c) => c.status === 503);
    const bSent = calls.filter((c) => c.from === "B").length;
    const errors = new Set(
      world.narration
        .texts()
        .filter((t) => / shows the error after the last attempt: /.test(t))
        .map((t) => t.slice(3)),
    );
    // The result stays recorded beside the error (invariant 7), and each pane showed it.
    const kept =
      a!.store.snapshot({ url }).data !== undefined && ["A", "B"].every((w) => told(world, `${w} shows 1 item (host answer #1)`));
    return `The host kept failing: A's refetch made ${failed.length} attempts inside its claim; B, opened meanwhile, joined it and sent ${bSent === 0 ? "nothing" : bSent}; ${errors.size === 1 ? "both show the same error" : "the panes show different errors"} after the last attempt${kept ? " and keep the list of answer #1, which the error did not erase" : ", and the list of answer #1 is gone"}; ${summary}.`;
  };
  const tab = { world, url, retry: RETRY, retryDelay: retryDelayMs };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      controls={
        <StepButtons
          step={step}
          buttons={[
            ["loaded", "The host goes down; A refetches", goDown],
            ["failing", "B opens the list", open],
          ]}
        />
      }
      panes={
        <PaneRow>
          <RetryTab {...tab} replica={a!} />
          <RetryTab {...tab} replica={b!} enabled={opened} />
        </PaneRow>
      }
    >
      <SharedFetchDevtoolsPanel store={b!.store} style={{ marginTop: "1rem" }} />
    </ScenarioFrame>
  );
}

export const HostKeepsFailing: Story = {
  name: "A host that keeps failing",
  args: { retryDelayMs: 2000 },
  render: (args) => <FailingScenario key={`${args.delayMs} ${args.retryDelayMs} ${args.url}`} {...args} />,
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 7 and 8. Two tabs, each `useQuery(sharedQueryOptions(store, url, { retry: 2, retryDelay }))`. A opens the list (host answer #1). The host goes down and A refetches: its claim of the next revision fails, and A retries inside it. B opens the list meanwhile: its mount joins A's claim, shows the list recorded before and, at once, the claim's `failureCount` and `failureReason`, rising with A's. After the last of 3 attempts the error is recorded once, beside the result: both tabs show the same error, `failureCount` 3, and keep the list, which the error never erases. 4 host requests, all A's (plain `useQuery`: B would send 3 more of its own). B's devtools panel shows the claim's retries by its holder while they run.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const canvas = within(canvasElement);
    const click = async (name: string) => {
      const button = canvas.getByRole("button", { name });
      await waitFor(() => expect(button).toBeEnabled(), WAIT);
      await userEvent.click(button);
    };
    await click("The host goes down; A refetches");
    await click("B opens the list");
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    // While A retries, B's panel names the claim's retries by its holder.
    await waitFor(
      () => expect(within(panel).getByTestId("retries")).toHaveTextContent(/^retry [12] · HTTP 503 Service Unavailable$/),
      WAIT,
    );
    await expect(await verdict(canvasElement)).toMatch(
      /^The host kept failing: A's refetch made 3 attempts inside its claim; B, opened meanwhile, joined it and sent nothing; both show the same error after the last attempt and keep the list of answer #1, which the error did not erase; 4 host requests: 1 by A, 3 503 to A\.$/,
    );
    await expectRequests(canvasElement, 4);
    const { paneA, paneB, panes } = await findPanes(canvasElement);
    await expect(paneA).toHaveAttribute("data-failures-seen", "0 1 2 3");
    // B opened after A's first failure: the claim's count at once, then the next.
    await expect(paneB.dataset.failuresSeen).toMatch(/^(0 )?1 2 3$/);
    for (const pane of panes) {
      await expect(within(pane).getByTestId("items")).toHaveTextContent(/^item 1 \(host answer #1\)$/);
      await expect(within(pane).getByTestId("failure-count")).toHaveTextContent(/^3$/);
      await expect(within(pane).getByTestId("error")).toHaveTextContent(
        /^HTTP 503 Service Unavailable from GET https:\/\/host\.example\/api\/items$/,
      );
    }
    await expectNoLies(panes);
    // The recorded error names its URL: at the width the panel has beside the timeline on a
    // 1280 px screen, the keys table still fits — the message wraps and "details" stays in view.
    // (Set for the measure only: whoever watches the story keeps the layout it had.)
    panel.style.width = "740px";
    const keys = within(panel).getByRole("table", { name: "Keys" });
    const scroller = within(panel).getByTestId("keys-scroller");
    const error = within(keys).getByTestId("error");
    try {
      // Inside the list's own box, not the panel's (whose padding hid a cut "details" by 13 px).
      expectWithin(keys, scroller, "the keys table");
      // The cell says what failed, not the request again (the row names it): beside the URL it was
      // squeezed to a few letters a line ("Unavailab / le", "https://h / ost.examp / le/…").
      expectWordsWhole(error);
      expectOneLine(within(keys).getByRole("button", { name: /^Details of / }), "the details button");
    } finally {
      panel.style.width = "";
    }
    await expect(error).toHaveTextContent(/^rev 2: HTTP 503 Service Unavailable$/);
    await expect(error).toHaveAttribute("title", "HTTP 503 Service Unavailable from GET https://host.example/api/items");
  },
};
