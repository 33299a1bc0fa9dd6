import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, waitFor, within } from "storybook/test";
import type { StaleReason } from "../src/index.ts";
import { DevtoolsState } from "./support/devtools-states.tsx";
import { expectPhrasesWhole, expectWithin } from "./support/layout.ts";

// The panel in each state it must show well; support/devtools-states.tsx puts the replicas and the
// doc in each one.

const meta = {
  title: "Devtools/States",
  component: DevtoolsState,
  args: { state: "empty" },
  argTypes: {
    state: {
      description: "The state the inspected replica's panel is put in; each story sets one.",
      control: "select",
      options: [
        "empty",
        "in-flight",
        "stale-lease-silence",
        "stale-abandoned",
        "stale-disowned",
        "stale-presence-left",
        "stale-lock-released",
        "presence-timed-out",
        "error-beside-result",
        "thousand-keys",
        "waiting-for-sync",
      ],
    },
  },
  render: (args) => <DevtoolsState key={args.state} {...args} />,
} satisfies Meta<typeof DevtoolsState>;
export default meta;
type Story = StoryObj<typeof meta>;

const slow = { timeout: 15_000 };

export const Empty: Story = {
  args: { state: "empty" },
  parameters: { docs: { description: { story: "No invariant: the panel on a doc with no key yet, the first thing it shows." } } },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await expect(await canvas.findByText("No keys in the doc yet.", {}, slow)).toBeTruthy();
  },
};

export const InFlight: Story = {
  args: { state: "in-flight" },
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 8 as the panel shows it: replica A's request is in flight, so the key reads pending, its claim live, on the panel of the replica that waits.",
      },
    },
  },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await waitFor(() => expect(canvas.getByTestId("key-row")).toHaveAttribute("data-status", "pending"), slow);
    await expect(canvas.getByTestId("claim-state")).toHaveTextContent(/live/);
  },
};

/** A stale claim for one reason: the Keys row says it, in the store's words. */
function staleStory(reason: StaleReason, words: RegExp, why: string): Story {
  return {
    args: { state: `stale-${reason}` },
    parameters: {
      docs: {
        description: {
          story: `Invariant 3: a foreign claim goes stale only by a real event or by silence on the observer's clock. ${why} The Timeline says why, in the store's words.`,
        },
      },
    },
    play: async ({ canvasElement }) => {
      const canvas = within(canvasElement);
      await waitFor(() => expect(canvas.getByTestId("narration")).toHaveTextContent(words), slow);
      // The claim's age and silence in seconds, each number with its unit on one line at any width
      // (the silence read "silent 3016 ms", and at 1280 px its "ms" wrapped alone).
      const state = canvas.getByTestId("claim-state");
      await expect(state).toHaveTextContent(/claimed ≥?\d+\.\d s ago · silent \d+\.\d s/);
      const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
      const holder = within(canvas.getByTestId("key-row")).getByTestId("holder");
      try {
        for (let width = 600; width <= 1400; width += 8) {
          panel.style.width = `${width}px`;
          expectPhrasesWhole(state, /\d+\.\d s/, `in a ${width} px panel`);
        }
        // A narrow dock (a phone, a side panel): the table scrolls sideways, and the holder's and
        // claim's columns kept only their longest word's width ("claimed / ≥3.6 s / ago ·", "replica- / r").
        for (let width = 340; width <= 420; width += 8) {
          panel.style.width = `${width}px`;
          expectPhrasesWhole(state, /\d+\.\d s ago/, `in a ${width} px panel`);
          expectPhrasesWhole(holder, /replica-r/, `in a ${width} px panel`);
          // The tabs wrap: in one row, the panel's edge cut "Malformed" off.
          for (const tab of within(panel).getAllByRole("tab")) expectWithin(tab, panel, `${tab.textContent} in a ${width} px panel`);
        }
      } finally {
        panel.style.width = "";
      }
    },
  };
}

export const StaleLeaseSilence = staleStory(
  "lease-silence",
  /R's heartbeat lapsed on GET https:\/\/host\.example\/api\/report: silent for \d+\.\d s/,
  "R, on another device, never sends a heartbeat: one lease after the observer first saw the claim, it is stale (silence).",
);
export const StaleAbandoned = staleStory(
  "abandoned",
  /R's claim on GET https:\/\/host\.example\/api\/report went stale: abandoned by its page/,
  "R's page marked its claim abandoned as it went (pagehide mid-request): stale at once.",
);
export const StaleDisowned = staleStory(
  "disowned",
  /Observer's claim on .* went stale: disowned/,
  "A claim under the observer's own id that the observer never made (forged by a peer): the observer disowns it at once.",
);
export const StalePresenceLeft = staleStory(
  "presence-left",
  /R's claim on .* went stale: presence left/,
  "R's presence left, told by the sync server (a goodbye): stale at once.",
);
export const StaleLockReleased = staleStory(
  "lock-released",
  /A's claim on .* went stale: lock released/,
  "A, a replica of this browser, crashes holding its claim: the browser frees its Web Lock, and the claim is stale at once, with no timer.",
);

/**
 * A replica not heard from: R, on another device, holds a claim and goes silent with no goodbye;
 * y-protocols' 30 s check drops its presence (origin "timeout"). The Timeline tells it apart from
 * a goodbye and from a released Web Lock: nothing proves R dead, so its claim keeps its lease.
 */
export const PresenceTimedOut: Story = {
  args: { state: "presence-timed-out" },
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 3, by what is not an event: replica R on another device holds a claim (a long lease) and goes silent with no goodbye: y-protocols' own 30 s check drops its presence (made here at once). The Timeline says R was not heard from and counted gone, its claims keeping their lease: a presence timeout is no proof of death (its connection, or ours, may have dropped), unlike a goodbye (Stale presence left) or a released Web Lock (Stale lock released). The Keys row still reads the claim live.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const canvas = within(canvasElement);
    const unheard =
      /R: not heard from, counted gone \(its presence timed out after 30 s of silence, or this side's connection dropped\); its claims keep their lease/;
    await waitFor(() => expect(canvas.getByTestId("narration")).toHaveTextContent(unheard), slow);
    await expect(canvas.getByTestId("narration")).not.toHaveTextContent(/went stale: presence left/);
    await expect(canvas.getByTestId("claim-state")).toHaveTextContent(/live/);
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    await userEvent.click(within(panel).getByRole("tab", { name: /^Timeline/ }));
    await waitFor(() => expect(panel).toHaveTextContent(/not heard from, counted gone/), slow);
  },
};

export const ErrorBesideResult: Story = {
  args: { state: "error-beside-result" },
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 7 as the panel shows it: a later revision's error (HTTP 503) stands beside the result of revision 1, which it does not erase; the row shows both.",
      },
    },
  },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    const row = await canvas.findByTestId("key-row", {}, slow);
    await expect(row).toHaveAttribute("data-status", "error");
    await expect(row).toHaveAttribute("data-result-rev", "1");
    await expect(within(row).getByTestId("error")).toHaveTextContent(/^rev 2: HTTP 503 Service Unavailable$/);
  },
};

export const ThousandKeys: Story = {
  args: { state: "thousand-keys" },
  parameters: {
    docs: {
      description: {
        story:
          "No invariant: the panel at scale. 1 000 keys (every tenth in error, every fiftieth claimed) in a virtualised list: a screenful of rows in the page, and scrolling reaches the last key with the columns still named above it.",
      },
    },
  },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await waitFor(() => expect(canvas.getByTestId("shown")).toHaveTextContent(/^1000 keys/), slow);
    await expect(canvas.getByTestId("count-error")).toHaveTextContent("error 100");
    // Virtualised: a screenful of rows in the DOM, and scrolling to the end renders the last key.
    await expect(canvas.getAllByTestId("key-row").length).toBeLessThan(60);
    const scroller = canvas.getByRole("region", { name: "Keys list" });
    scroller.scrollTop = scroller.scrollHeight;
    const last = () => canvas.getAllByRole("rowheader").map((th) => th.textContent);
    await waitFor(() => expect(last()).toContain("GET https://api.example.test/items/999"), slow);
    await expect(canvas.getAllByTestId("key-row").length).toBeLessThan(60);
    // Scrolled to the end, the columns are still named: the header row stays at the top of the list.
    const header = within(scroller).getByRole("columnheader", { name: "Error" });
    await expect(Math.abs(header.getBoundingClientRect().top - scroller.getBoundingClientRect().top)).toBeLessThanOrEqual(1);
  },
};

/**
 * Where the time before a first request goes. The inspected replica asks while its sync
 * server never answers: its row says it waits for the sync, then, after the 2 s cap, that
 * its request is in flight (the host never answers in time). The Replicas tab names the window.
 */
export const WaitingForSync: Story = {
  args: { state: "waiting-for-sync" },
  parameters: {
    docs: {
      description: {
        story:
          "No invariant: where the time before a first request goes. The inspected replica asks while its sync server accepted the connection and never answers. A first claim waits for the initial sync, so its row says it waits for the sync, then, after the 2 s cap, that its request is in flight. The Replicas tab names the settle window a claim would wait and why.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const canvas = within(canvasElement);
    const holder = () => within(canvas.getByTestId("key-row")).getByTestId("holder");
    await waitFor(() => expect(holder()).toHaveTextContent(/^me \(this tab\) · waiting for the sync$/), slow);
    await waitFor(() => expect(holder()).toHaveTextContent(/^me \(this tab\) · request in flight$/), slow);
    await expect(canvas.getByTestId("key-row")).toHaveAttribute("data-status", "pending");
    await userEvent.click(canvas.getByRole("tab", { name: /^Replicas/ }));
    await expect(canvas.getByTestId("settle-window")).toHaveTextContent(/: window 100 ms: the default, no round trip measured yet$/);
    // A 380 px dock: the Replica column had the Keys tab's 12rem floor (for URLs) and took over half the panel.
    const panel = canvas.getByRole("region", { name: /shared-fetch devtools/i });
    try {
      panel.style.width = "380px";
      const replica = within(panel).getByRole("columnheader", { name: "Replica" }).getBoundingClientRect().width;
      await expect(replica, "the Replica column in a 380 px panel").toBeLessThanOrEqual(panel.getBoundingClientRect().width / 2);
    } finally {
      panel.style.width = "";
    }
  },
};
