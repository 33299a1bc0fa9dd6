/**
 * A scenario file's docs page (Storybook's "Docs" entry) mounts every story of the file at once,
 * each with its own replicas and counting host. On Outcomes, three of them fetch through Mock
 * Service Worker: each request must reach its own scenario's host, once.
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

const counters = (page: import("playwright-core").Page) =>
  page.$$eval('[data-testid="host-requests"]', (els) => els.map((el) => el.textContent ?? ""));

it("the Outcomes docs page: each scenario's requests reach its own host, once each (Mock Service Worker started once per page)", async () => {
  const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } });
  try {
    await page.goto(`${storybook!.origin}/iframe.html?id=scenarios-outcomes--docs&viewMode=docs`);
    // The primary story (failing duplicate) and the three stories below it: two requests each
    // (the duplicate and the takeovers are the point), answered by that scenario's host.
    await expect.poll(() => counters(page), { timeout: 60_000 }).toEqual(Array(4).fill("host requests: 2"));
    const orders = page.locator('section[aria-label="Replica A"] [data-testid="data"]', { hasText: '"order"' });
    await expect.poll(() => orders.allTextContents(), { timeout: 30_000 }).toEqual([expect.stringMatching(/"order": 1/)]);
    // A request counted twice would arrive with the first: still two each a while later.
    await page.waitForTimeout(2000);
    await expect(counters(page)).resolves.toEqual(Array(4).fill("host requests: 2"));
    const errors = await page.$$eval('section[aria-label^="Replica"] [data-testid="error"]', (els) =>
      els.map((el) => el.textContent ?? ""),
    );
    for (const error of errors) expect(error).toMatch(/^(—|HTTP 429 .*)$/);
  } finally {
    await page.close();
  }
}, 180_000);
