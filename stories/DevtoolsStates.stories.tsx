import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, waitFor, within } from "storybook/test";
import { Awareness, removeAwarenessStates } from "y-protocols/awareness";
import * as Y from "yjs";
import { describeEntry, SharedFetchDevtoolsPanel, useDevtoolsModel } from "../devtools/production.ts";
import { createSharedFetchStore, type SharedFetchStoreWithExtras, type StaleReason } from "../src/index.ts";
import { registerConnector } from "../src/core/connectors.ts";
import { internalsOf, PRESENCE_FIELD, ROOT, TABLES } from "../src/internals.ts";
import { seedKeys } from "../test/devtools/seed.ts";
import { expectPhrasesWhole, expectWithin } from "./support/layout.ts";
import { createLinkedDocs } from "./support/linked-docs.ts";
import { scenarioLocks } from "./support/page-locks.ts";
import { useDisposable } from "./support/replicas.ts";
import { createSimulatedHost } from "./support/simulated-host.ts";

/**
 * The panel in each state it must show well: empty, in flight, a stale claim for each of the
 * store's reasons, an error beside a result, 1 000 keys, a first request held by a sync that never
 * ends. Replica "observer" is inspected; peers' records are written raw into the doc (as a peer on
 * another machine would have written them).
 */
type State =
  "empty" | "in-flight" | `stale-${StaleReason}` | "presence-timed-out" | "error-beside-result" | "thousand-keys" | "waiting-for-sync";

const URL = "https://host.example/api/report";
const LABEL = `GET ${URL}`;

/** One raw record from a peer, in a lane of its own. */
function writeAsPeer(doc: Y.Doc, table: string, key: string, value: unknown): void {
  const lane = new Y.Array<unknown>();
  lane.push([{ t: table, k: key, v: value, s: 1 }]);
  doc.getArray<unknown>(ROOT).push([lane]);
}

function createState(state: State) {
  const linked = createLinkedDocs(2);
  const awareness = new Awareness(linked.docs[1]!);
  // The simulated host never answers in time: claims stay in flight while the story is looked at.
  const host = createSimulatedHost({ delayMs: 600_000 });
  // Every state names its replicas alike: under the page's shared lock names one would wait for another's.
  const locks = scenarioLocks();
  const inPage = locks ? { locks } : {};
  const peer = createSharedFetchStore({ doc: linked.docs[0]!, replicaId: "replica-a", fetch: host.fetch, leaseMs: 1500, ...inPage });
  // A sync server that accepted the socket and never answers (a stand-in connector): the store's
  // first claim waits for its initial sync, up to the 2 s cap.
  if (state === "waiting-for-sync") registerConnector(linked.docs[1]!, { whenSynced: new Promise<void>(() => {}), crossDevice: true });
  const observer = createSharedFetchStore({ doc: linked.docs[1]!, replicaId: "observer", fetch: host.fetch, awareness, ...inPage });
  const doc = linked.docs[1]!;
  const key = observer.keyOf({ url: URL });
  // A replica on another device, not running here (a running store would disown a claim under its id).
  const claim = { replicaId: "replica-r", nonce: "n-1", rev: 1, leaseMs: 1500, label: LABEL, kind: "fetch" };
  switch (state) {
    case "in-flight":
      peer.ensure({ url: URL }).catch(() => {});
      break;
    case "stale-lease-silence": // no heartbeat ever comes: stale 1.5 s after the observer first saw it
      writeAsPeer(doc, TABLES.claims, key, claim);
      break;
    case "stale-abandoned":
      writeAsPeer(doc, TABLES.claims, key, { ...claim, abandoned: true });
      break;
    case "stale-disowned": // a claim under the observer's own id that it never made
      writeAsPeer(doc, TABLES.claims, key, { ...claim, replicaId: "observer", nonce: "forged" });
      break;
    case "stale-presence-left":
    case "presence-timed-out": {
      const other = new Awareness(new Y.Doc());
      other.setLocalStateField(PRESENCE_FIELD, { replicaId: "replica-r" });
      awareness.getStates().set(other.clientID, other.getLocalState()!);
      awareness.emit("change", [{ added: [other.clientID], updated: [], removed: [] }, "story"]);
      writeAsPeer(doc, TABLES.claims, key, { ...claim, leaseMs: 600_000 });
      // "server": the sync server said R left. "timeout": y-protocols' own check found R silent for
      // 30 s (a crashed device, a frozen laptop), made here at once, with the origin it gives.
      const origin = state === "presence-timed-out" ? "timeout" : "server";
      setTimeout(() => removeAwarenessStates(awareness, [other.clientID], origin), 300);
      break;
    }
    case "stale-lock-released": {
      // Both stores hold real Web Locks of this browser; the claimant "crashes" half a second after
      // its claim is in the doc. Timed from creation instead, a busy page crashed it before it had
      // claimed: the panel showed "No keys in the doc yet" for good.
      peer.ensure({ url: URL }).catch(() => {});
      const off = peer.onEvent((e) => {
        if (e.type !== "claimed") return;
        off();
        setTimeout(() => internalsOf(peer).dev.crash(), 500);
      });
      break;
    }
    case "error-beside-result":
      seedKeys(doc, 1, { errorEvery: 1, origin: "https://host.example" });
      break;
    case "thousand-keys":
      seedKeys(doc, 1000, { errorEvery: 10, claimEvery: 50 });
      break;
    case "waiting-for-sync":
      observer.ensure({ url: URL }).catch(() => {});
      break;
  }
  return {
    observer,
    awareness,
    destroy() {
      peer.destroy();
      observer.destroy();
      linked.destroy();
    },
  };
}

/** The timeline as sentences, as a scenario narrates it (describeEntry is public for this). */
function Narration({ store }: { store: SharedFetchStoreWithExtras }) {
  const { timeline } = useDevtoolsModel(store);
  const name = (id: string) => (id === "observer" ? "Observer" : id === "replica-a" ? "A" : id === "replica-r" ? "R" : id);
  return (
    <ol data-testid="narration" style={{ fontFamily: "system-ui, sans-serif", fontSize: 13 }}>
      {[...timeline].reverse().map((e) => (
        <li key={e.seq}>{describeEntry(e, name)}</li>
      ))}
    </ol>
  );
}

function DevtoolsState({ state }: { state: State }) {
  const world = useDisposable(() => createState(state));
  return (
    <div>
      <SharedFetchDevtoolsPanel store={world.observer} awareness={world.awareness} initialTab="keys" />
      <Narration store={world.observer} />
    </div>
  );
}

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
  },
};
