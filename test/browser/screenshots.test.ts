/**
 * Screenshots of two scenarios at their end state, for the README: Storybook is built (offline)
 * into a temp dir, served on 127.0.0.1, and each story's iframe runs its play function to the
 * verdict. The PNGs go to docs/ only with UPDATE_SCREENSHOTS=1 (else a temp dir), so `npm test`
 * leaves the work tree clean.
 */
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildStorybook, ROOT, type BuiltStorybook } from "./built-storybook.ts";
import { launchBrowser } from "./harness.ts";

let storybook: BuiltStorybook | undefined;
let out = "";
let origin = "";
let browser: Browser;

beforeAll(async () => {
  storybook = await buildStorybook();
  origin = storybook.origin;
  out = process.env.UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs") : join(storybook.dir, "screenshots");
  await mkdir(out, { recursive: true });
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await storybook?.close();
});

/** Opens a story alone (its play function runs), waits for its verdict, screenshots the canvas. */
async function shoot(id: string, file: string): Promise<string> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 560 } });
  try {
    await page.goto(`${origin}/iframe.html?id=${id}&viewMode=story`);
    const verdict = page.getByTestId("verdict");
    await verdict.waitFor({ timeout: 60_000 });
    const text = (await verdict.textContent()) ?? "";
    const path = join(out, file);
    await page.locator("#storybook-root").screenshot({ path });
    expect((await stat(path)).size).toBeGreaterThan(10_000);
    return text;
  } finally {
    await page.close();
  }
}

it("screenshots the crashed-tab scenario at its end state", async () => {
  await expect(shoot("scenarios-failures--crashed-tab", "crashed-tab.png")).resolves.toMatch(/^B took over/);
}, 120_000);

it("screenshots the real-tabs scenario at its end state", async () => {
  await expect(shoot("scenarios-real-tabs--crash-a-real-tab", "real-tabs.png")).resolves.toMatch(/took over \d+ ms after/);
}, 120_000);
