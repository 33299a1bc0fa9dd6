import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, waitFor, within } from "storybook/test";
import { expectNarrated, verdict, WAIT } from "./support/play.ts";
import { MOCKED_API, workerScript } from "./support/mocked-host.ts";
import { delayArg, leaseArg, urlArg } from "./support/worlds.ts";
import { RealTabs, tabWindow } from "./real-tabs/real-tabs.tsx";

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
          "Invariant 3 (a) with real browsing contexts: each tab is an iframe of one small page with its own store on connectTabs — a real BroadcastChannel, IndexedDB and Web Locks. Crash the fetching tab (its iframe is removed mid-request) and another tab takes over in milliseconds, far inside the 5 s lease: the browser released the dead tab's lock (or its page marked its claim abandoned on the way out). Reload a tab: a new replica, which reads the claim from IndexedDB. Each tab's requests are its own real fetches to /api/report, answered through Mock Service Worker by the story's counting host.",
      },
    },
  },
  play: async ({ canvasElement, userEvent }) => {
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
      new RegExp(
        `^${other} took over /api/report from ${claimant}: (its Web Lock was released|its page marked the claim abandoned|its presence left)$`,
      ),
    );
    const survivor = tabWindow(canvasElement, other)!;
    // The survivor's requests were its own real fetches, through the service worker.
    await expect(workerScript(survivor)).toMatch(/\/mockServiceWorker\.js$/);
    await waitFor(() => expect(survivor.document.querySelector('[data-testid="status"]')?.textContent).toBe("success"), WAIT);
    await expect(survivor.__lied).toBe(false);
    await expect(canvas.getByTestId("host-requests")).toHaveTextContent(/^host requests: 2$/);
  },
};
