/**
 * Devtools/States opened alone, as a user opens a story from the sidebar, on a busy page (the CPU
 * throttled 4×, as a loaded laptop or a cold first load is): a state must still reach what its
 * name promises. Add a state here when its set-up races a timer. The lock-released state once crashed its claimant on a timer
 * started at creation, which a busy page reached before the claimant had claimed: the panel said
 * "No keys in the doc yet" for good.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildStorybook, type BuiltStorybook } from "./built-storybook.ts";
import { launchBrowser } from "./harness.ts";

let storybook: BuiltStorybook | undefined;
let browser: Browser;

beforeAll(async () => {
  storybook = await buildStorybook();
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await storybook?.close();
});

const STATES: [id: string, narrated: RegExp][] = [
  ["stale-lock-released", /A's claim on GET https:\/\/host\.example\/api\/report went stale: lock released/],
];

for (const [id, narrated] of STATES) {
  it(`Devtools/States ${id}, alone on a busy page: the Keys row is stale and the timeline says why`, async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    try {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      await page.goto(`${storybook!.origin}/iframe.html?id=devtools-states--${id}&viewMode=story`);
      const narration = page.getByTestId("narration");
      await expect.poll(async () => (await narration.count()) && narration.textContent(), { timeout: 30_000 }).toMatch(narrated);
      const rows = page.getByTestId("key-row");
      expect(await rows.count()).toBe(1);
      expect(await rows.getAttribute("data-status")).toBe("stale");
    } finally {
      await page.close();
    }
  }, 120_000);
}
