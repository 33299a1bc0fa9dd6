import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, waitFor, within } from "storybook/test";
import { atWindowWidth, expectWordsWhole } from "./support/layout.ts";
import { expectNarrated, narration, verdict, WAIT } from "./support/play.ts";
import { MOCKED_API, workerScript } from "./support/mocked-host.ts";
import { delayArg, leaseArg, urlArg } from "./support/worlds.ts";
import * as Y from "yjs";
import { connectTabs } from "../src/index.ts";
import { createTabsWorld, RealTabs, tabWindow, WORLDS_KEY } from "./real-tabs/real-tabs.tsx";

/** What connectTabs keeps in this browser under `name`: localStorage entries, the IndexedDB database. */
async function persisted(name: string): Promise<string[]> {
  const stored = Object.keys(localStorage).filter((key) => key.endsWith(`:${name}`));
  const databases = (await indexedDB.databases()).flatMap((db) => (db.name === name ? [`indexeddb ${name}`] : []));
  return [...stored, ...databases];
}

/** A tab of world `name` that wrote to its doc and closed, as each iframe of the story does. */
async function persistAsATab(name: string): Promise<void> {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name });
  await tabs.whenSynced;
  doc.getMap("written").set("by", "a tab");
  await waitFor(async () => expect((await indexedDB.databases()).some((db) => db.name === name)).toBe(true), WAIT);
  tabs.destroy();
  doc.destroy();
}

const meta = {
  title: "Scenarios/Real tabs",
  component: RealTabs,
  args: { tabs: 2, leaseMs: 5000, delayMs: 1500, url: `${MOCKED_API}/report` },
  argTypes: {
    tabs: {
      description: "How many tabs (iframes of one page) open at first: 2 to 4. Add more with the button.",
      control: { type: "number", min: 2, max: 4 },
    },
    leaseMs: { ...leaseArg, description: "Lease bound of every claim (ms). The default 5 s: a lock-based takeover does not wait for it." },
    delayMs: delayArg,
    url: {
      ...urlArg,
      description: `What the tabs ask for: each tab's real fetch, answered through Mock Service Worker for any path under ${MOCKED_API}/.`,
    },
  },
  render: (args) => <RealTabs key={JSON.stringify(args)} {...args} />,
} satisfies Meta<typeof RealTabs>;
export default meta;
type Story = StoryObj<typeof meta>;

export const CrashARealTab: Story = {
  name: "Real tabs: crash the claimant, the lock tells at once",
  parameters: {
    docs: {
      description: {
        story:
          "Invariant 3 (a) with real browsing contexts: each tab is an iframe of one small page with its own store on connectTabs — a real BroadcastChannel, IndexedDB and Web Locks. Crash the fetching tab (its iframe is removed mid-request, its pagehide listeners stopped: no goodbye, no claim released, no presence withdrawn) and another tab takes over in milliseconds, far inside the 5 s lease: the browser released the dead tab's Web Lock, as it does for a crashed tab. Reload a tab: a new replica, which reads the claim from IndexedDB. Each tab's requests are its own real fetches to /api/report, answered through Mock Service Worker by the story's counting host.",
      },
    },
  },
  play: async ({ canvasElement, userEvent, mount }) => {
    // A page reloaded while this story ran: its world's tabs persisted a doc, and no unmount removed it.
    const leftover = `rt-left-${Math.random().toString(36).slice(2, 8)}`;
    await persistAsATab(leftover);
    localStorage.setItem(WORLDS_KEY, JSON.stringify([...JSON.parse(localStorage.getItem(WORLDS_KEY) ?? "[]"), leftover]));
    await expect(await persisted(leftover)).toHaveLength(3);
    await mount();
    const canvas = within(canvasElement);
    // One request for all tabs: wait until it is out, and crash whichever tab sent it.
    await waitFor(() => expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/), { timeout: 30_000 });
    const claimant = canvas.getByTestId("first-caller").textContent!;
    const other = claimant === "A" ? "B" : "A";
    await waitFor(
      () =>
        expect(tabWindow(canvasElement, other)?.document.querySelector('[data-testid="claim"]')?.textContent).toMatch(/^[0-9a-z-]{8,}$/),
      WAIT,
    );
    await userEvent.click(canvas.getByRole("button", { name: `Crash ${claimant}` }));
    await expect(canvas.getByRole("region", { name: `Tab ${claimant}` })).toHaveAttribute("data-crashed", "true");
    const line = await verdict(canvasElement);
    await expect(line).toMatch(new RegExp(`^${other} took over \\d+ ms after ${claimant}'s iframe was removed`));
    // Far inside the lease: an event, not the lease, told the survivor.
    await expect(Number(/took over (\d+) ms/.exec(line)![1])).toBeLessThan(2500);
    await expectNarrated(
      canvasElement,
      // A crash says no goodbye: no pagehide marks the claim abandoned nor withdraws presence.
      new RegExp(`^${other} took over /api/report from ${claimant}: lock released$`),
    );
    const survivor = tabWindow(canvasElement, other)!;
    // The survivor's requests were its own real fetches, through the service worker.
    await expect(workerScript(survivor)).toMatch(/\/mockServiceWorker\.js$/);
    await waitFor(() => expect(survivor.document.querySelector('[data-testid="status"]')?.textContent).toBe("success · idle"), WAIT);
    await expect(survivor.__lied).toBe(false);
    // Its answer reads whole in its tab: no line runs past the iframe's edge (a result's JSON is one long word).
    const page = survivor.document.documentElement;
    await expect(page.scrollWidth).toBeLessThanOrEqual(page.clientWidth);
    // ...and breaks between words and after a path's "/", never inside a word ("api/rep|ort"), at
    // whatever width the tab has: where the edge meets the URL depends on the window and the port.
    const data = survivor.document.querySelector<HTMLElement>('[data-testid="data"]')!.parentElement!;
    for (let width = 160; width <= data.clientWidth; width += 6) {
      data.style.width = `${width}px`;
      expectWordsWhole(data);
    }
    data.style.width = "";
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 2$/);
    // The crashed tab said nothing on its way out: no claim released, no request aborted by its page
    // ("is gone" is the browser's word on it, its lock released, told by the survivor).
    const goodbyes = narration(canvasElement).filter(
      (l) => l.startsWith(`${claimant} `) && !/^\w (opened|claimed|crashed|is gone: its Web Lock was released)\b/.test(l),
    );
    await expect(goodbyes).toEqual([]);
    // The world that mounted removed what the gone page's world left (nobody held its lock).
    await waitFor(async () => expect(await persisted(leftover)).toEqual([]), WAIT);
    // A world removes its own doc when the story goes (switching stories unmounts it).
    const world = createTabsWorld(100, 2);
    await persistAsATab(world.id);
    await expect(await persisted(world.id)).toHaveLength(3);
    world.destroy();
    await waitFor(async () => expect(await persisted(world.id)).toEqual([]), WAIT);
  },
};

/** Each tab's status, claim and data as its own page shows them (null: no page open under that name). */
function tabView(canvasElement: HTMLElement, name: string) {
  const doc = tabWindow(canvasElement, name)?.document;
  const text = (id: string) => doc?.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
  return {
    status: text("status"),
    claim: text("claim"),
    data: text("data"),
    replicaId: tabWindow(canvasElement, name)?.__store?.replicaId,
  };
}

export const ReloadARealTab: Story = {
  name: "Real tabs: reload the claimant, then add a tab",
  // Longer than a reloaded page takes to open, so the new replica finds the request in flight.
  args: { delayMs: 4000 },
  parameters: {
    docs: {
      description: {
        story:
          "Invariants 3 (a) and 11 with real browsing contexts. The fetching tab reloads mid-request: its page runs pagehide, so its store aborts its request at the host and lets its Web Lock go, and another tab takes the claim over at once (same revision), far inside the lease. The reloaded tab is a new replica: it reads the claim from IndexedDB and the other tabs and waits on it, with no request of its own. Then a tab is added after the result was recorded: as any TanStack query with the default staleTime 0 does on mount, it refetches — one request, whose answer every tab shows.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
    const canvas = within(canvasElement);
    await waitFor(() => expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 1$/), { timeout: 30_000 });
    const claimant = canvas.getByTestId("first-caller").textContent!;
    const other = claimant === "A" ? "B" : "A";
    await waitFor(() => expect(tabView(canvasElement, other).claim).toMatch(/^[0-9a-z-]{8,}$/), WAIT);
    const before = tabView(canvasElement, claimant).replicaId;
    await expect(before).toMatch(/^[0-9a-z-]{8,}$/);

    await userEvent.click(canvas.getByRole("button", { name: `Reload ${claimant}` }));
    const line = await verdict(canvasElement);
    // The store's verdict: pagehide marked the claim abandoned before the unload let the Web Lock go.
    await expect(line).toMatch(new RegExp(`^${other} took over \\d+ ms after ${claimant} reloaded \\(abandoned by its page\\)`));
    await expect(Number(/took over (\d+) ms/.exec(line)![1])).toBeLessThan(2500);
    // The reload let go of its request: aborted at the host by its own page, not lost as in a crash.
    // (its page marked the claim abandoned at pagehide: the survivor's store took it over for that)
    await expectNarrated(canvasElement, new RegExp(`^${claimant}'s request was aborted at the host$`));
    await expectNarrated(canvasElement, new RegExp(`^${other} took over /api/report from ${claimant}: abandoned by its page$`));
    await expectNarrated(canvasElement, /^2 host requests: 1 aborted by \w, 1 by \w$/);
    await expect(canvas.getByTestId("host-aborted")).toHaveTextContent("aborted: 1");
    // The reloaded tab is a new replica, which joined the survivor's request rather than sending its own.
    await waitFor(() => {
      expect(tabView(canvasElement, claimant).replicaId).toMatch(/^[0-9a-z-]{8,}$/);
      expect(tabView(canvasElement, claimant).replicaId).not.toBe(before);
      for (const name of [claimant, other]) expect(tabView(canvasElement, name).status).toBe("success · idle");
    }, WAIT);
    await expectNarrated(canvasElement, new RegExp(`^${claimant} joined ${other}'s request for /api/report \\(rev 1\\): sent nothing$`));
    await expect(tabView(canvasElement, claimant).data).toBe(tabView(canvasElement, other).data);
    await expect(tabView(canvasElement, other).data).toMatch(/"request":2/);
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 2$/);

    // A tab added now mounts after the result: staleTime 0 refetches, once, for every tab.
    await userEvent.click(canvas.getByRole("button", { name: "Add a tab" }));
    await waitFor(
      () => {
        for (const name of [claimant, other, "C"]) expect(tabView(canvasElement, name).data).toMatch(/"request":3/);
      },
      { timeout: 30_000 },
    );
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 3$/);
    for (const name of [claimant, other, "C"]) await expect(tabWindow(canvasElement, name)!.__lied).toBe(false);
    // On a phone the timeline goes under the tabs: beside them, its 16rem left the tabs a 75 px
    // column, each tab a strip a letter wide.
    await atWindowWidth(canvasElement, 380, () => {
      const timeline = canvas.getByRole("complementary", { name: "What happened" }).getBoundingClientRect();
      for (const tab of canvasElement.querySelectorAll("section[data-tab]")) {
        const box = tab.getBoundingClientRect();
        const apart = box.bottom <= timeline.top || timeline.bottom <= box.top || box.right <= timeline.left || timeline.right <= box.left;
        expect(apart, `tab ${tab.getAttribute("data-tab")} overlaps the timeline at 380 px`).toBe(true);
        expect(box.width, `tab ${tab.getAttribute("data-tab")} at 380 px`).toBeGreaterThanOrEqual(150);
      }
    });
  },
};
