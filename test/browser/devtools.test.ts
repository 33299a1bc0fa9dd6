/**
 * The devtools panel in real chromium tabs (issue 12): two tabs of one browser show the panel; the
 * claimant crashes (CDP Page.crash); the survivor's panel tells the store's verdict and the takeover,
 * and that no settle window is waited between tabs (issue 10).
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import react from "@vitejs/plugin-react";
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, Tab, uniqueName, waitUntil } from "./harness.ts";
import { startHost, type CountingHost } from "./host.ts";

const pageRoot = fileURLToPath(new URL("./devtools-page/", import.meta.url));
/** The README shows this screenshot; the test rewrites it only when asked, so `npm test` leaves the tree clean. */
const README_SCREENSHOT = fileURLToPath(new URL("../../docs/devtools.png", import.meta.url));

let dir: string;
let host: CountingHost;
let browser: Browser;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "shared-fetch-devtools-page-"));
  await build({
    configFile: false,
    root: pageRoot,
    base: "/",
    logLevel: "warn",
    mode: "production",
    plugins: [react()],
    build: { outDir: dir, emptyOutDir: true, minify: false, reportCompressedSize: false },
  });
  host = await startHost(dir);
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close().catch(() => {});
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(page: Page, url: string, name: string): Promise<Tab> {
  const tab = new Tab(page, page.context(), name);
  await page.goto(url, { waitUntil: "domcontentloaded" });
  await page.waitForFunction(() => (window as unknown as { __ready?: boolean }).__ready === true, undefined, { timeout: 60_000 });
  return tab;
}

/**
 * Page clock minus this process's clock (epoch ms), best of a few round trips (error ≤ RTT/2).
 * Not Tab.clockOffset: under vitest an imported `performance` inside page.evaluate is rewritten
 * into a module binding the page does not have; `globalThis.performance` is left alone.
 */
async function pageClockOffset(page: Page): Promise<number> {
  let best = { offset: 0, rtt: Infinity };
  for (let i = 0; i < 15; i++) {
    const before = performance.timeOrigin + performance.now();
    const pageNow = await page.evaluate(() => globalThis.performance.timeOrigin + globalThis.performance.now());
    const after = performance.timeOrigin + performance.now();
    if (after - before < best.rtt) best = { offset: pageNow - (before + after) / 2, rtt: after - before };
  }
  return best.offset;
}

describe("devtools in chromium tabs", () => {
  it("the claimant crashes: the survivor's panel shows its claim stale (lock released) within 500 ms, the takeover in the timeline, the replica absent; axe finds nothing serious", async () => {
    const api = `/api/${uniqueName("devtools")}`;
    host.plan(api, ["hang", { delayMs: 0 }]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const q = (tab: string) => `${host.origin}/?${new URLSearchParams({ api, tabs: uniqueName("tabs"), lease: "3000", tab })}`;
    const base = q("keys");
    const claimant = await open(await context.newPage(), base, "claimant");
    await host.waitForCall(api, 1, 60_000);
    const survivor = await open(await context.newPage(), base.replace("tab=keys", "tab=timeline"), "survivor");
    const claimantId = await claimant.page.evaluate(() => (window as unknown as { __replicaId: string }).__replicaId);
    const panel = survivor.page.getByTestId("shared-fetch-devtools-panel");
    // The survivor's panel sees the claim live before the crash.
    await survivor.page.waitForSelector(`[data-testid="timeline-entry"][data-type="claimed"]`, { timeout: 60_000 });

    // In the page, on its clock: when the panel first shows the stale verdict.
    await survivor.page.evaluate(() => {
      const w = window as unknown as { __staleSeenAt?: number };
      const seen = () => document.querySelector('[data-testid="timeline-entry"][data-type="stale"][data-reason="lock-released"]');
      new MutationObserver((_, observer) => {
        if (w.__staleSeenAt === undefined && seen()) {
          w.__staleSeenAt = globalThis.performance.timeOrigin + globalThis.performance.now();
          observer.disconnect();
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const offset = await pageClockOffset(survivor.page);
    const crashedAt = performance.timeOrigin + (await claimant.crash());

    const staleSeenAt = await waitUntil(
      "the stale verdict in the survivor's panel",
      () => survivor.page.evaluate(() => (window as unknown as { __staleSeenAt?: number }).__staleSeenAt),
      60_000,
    );
    const latency = staleSeenAt - offset - crashedAt;
    console.info(`devtools e2e: crash to "stale: lock released" in the survivor's panel: ${latency.toFixed(0)} ms`);
    expect(latency).toBeLessThan(500);

    const takeover = panel.locator('[data-testid="timeline-entry"][data-type="takeover"]');
    await takeover.waitFor({ timeout: 60_000 });
    expect(await takeover.getAttribute("data-reason")).toBe("lock-released");
    expect(await takeover.innerText()).toMatch(
      new RegExp(`this tab took over GET http://127\\.0\\.0\\.1:\\d+${api} from ${claimantId.slice(0, 11)}…: lock released`),
    );

    await panel.getByRole("tab", { name: /^Keys/ }).click();
    const row = panel.getByTestId("key-row");
    // The survivor took the request over and its host call answered at once: the result is its own.
    await expect.poll(() => row.getAttribute("data-result-rev"), { timeout: 30_000 }).toBe("1");
    expect(await row.getByTestId("result").innerText()).toMatch(/by me/);
    expect(host.count(api)).toBe(2);
    await panel.getByRole("tab", { name: /^Replicas/ }).click();
    const crashed = panel.locator(`[data-testid="replica-row"][data-replica-id="${claimantId}"]`);
    expect(await crashed.getAttribute("data-present")).toBe("false");
    expect(await crashed.getByTestId("present").innerText()).toMatch(/^absent: lock released/);
    // Issue "time to data": between tabs of one browser the key's Web Lock decides, and the panel says so.
    const settle = panel.getByTestId("settle-window");
    expect(await settle.getAttribute("data-why")).toBe("tab-locks");
    expect(await settle.innerText()).toMatch(/: no window: the key's Web Lock decides between this browser's tabs$/);

    await panel.getByRole("tab", { name: /^Timeline/ }).click();
    const axe = await new AxeBuilder({ page: survivor.page }).include('[data-testid="shared-fetch-devtools-panel"]').analyze();
    const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);

    const path = process.env.UPDATE_SCREENSHOTS === "1" ? README_SCREENSHOT : join(dir, "devtools.png");
    await mkdir(dirname(path), { recursive: true });
    await survivor.page.screenshot({ path });
    expect(survivor.consoleProblems).toEqual([]);
    await context.close();
  }, 180_000);

  it("as a plugin of the TanStack Devtools shell (@tanstack/react-devtools), the panel renders in the shell's plugin pane and follows the store", async () => {
    const api = `/api/${uniqueName("devtools-shell")}`;
    host.plan(api, ["hold"]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const url = `${host.origin}/?${new URLSearchParams({ api, tabs: uniqueName("tabs"), shell: "1" })}`;
    const tab = await open(await context.newPage(), url, "shell");
    const call = await host.waitForCall(api, 1, 60_000);
    // The shell lists the plugin by its name, and the panel sits in the shell's own pane (not the floating dock).
    await tab.page.getByText("shared-fetch", { exact: true }).first().waitFor({ timeout: 30_000 });
    const panel = tab.page.getByRole("region", { name: "shared-fetch devtools" });
    await panel.waitFor({ timeout: 30_000 });
    expect(await tab.page.getByTestId("shared-fetch-devtools").count()).toBe(0);
    const row = panel.getByTestId("key-row");
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 30_000 }).toBe("pending");
    call.respond({ n: 1 });
    await expect.poll(() => row.getAttribute("data-result-rev"), { timeout: 30_000 }).toBe("1");
    expect(await row.getByTestId("result").innerText()).toMatch(/by me/);
    expect(tab.consoleProblems).toEqual([]);
    await context.close();
  }, 180_000);

  it("TanStack's Query devtools (ReactQueryDevtoolsPanel) in the same shell: Trigger Error on the shared query shows the error in this tab only, writes nothing another tab shows, and Restore brings the recorded result back", async () => {
    const api = `/api/${uniqueName("query-devtools")}`;
    host.plan(api, [{ delayMs: 0 }]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tabsName = uniqueName("tabs");
    const url = (shell: string) => `${host.origin}/?${new URLSearchParams({ api, tabs: tabsName, shell })}`;
    const tab = await open(await context.newPage(), url("1"), "shell");
    const other = await open(await context.newPage(), url("0"), "other");
    for (const t of [tab, other]) await expect.poll(() => t.page.getByTestId("status").innerText(), { timeout: 30_000 }).toBe("success");
    const page = tab.page;
    await page.getByText("TanStack Query", { exact: true }).first().click();
    const row = page.locator(".tsqd-query-row", { hasText: "shared-fetch" }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.click();
    const trigger = page.locator(".tsqd-query-details-action-error");
    await expect.poll(() => trigger.innerText(), { timeout: 30_000 }).toMatch(/Trigger Error/);
    await trigger.click();
    await expect.poll(() => page.getByTestId("status").innerText(), { timeout: 30_000 }).toBe("error");
    await expect.poll(() => trigger.innerText(), { timeout: 30_000 }).toMatch(/Restore Error/);
    // Still so once rendered again, and nowhere else: the other tab keeps the recorded result.
    await new Promise((r) => setTimeout(r, 300));
    expect(await page.getByTestId("status").innerText()).toBe("error");
    expect(await other.page.getByTestId("status").innerText()).toBe("success");
    expect(await other.page.getByTestId("data").innerText()).not.toBe("");
    await trigger.click();
    await expect.poll(() => page.getByTestId("status").innerText(), { timeout: 30_000 }).toBe("success");
    expect(await other.page.getByTestId("status").innerText()).toBe("success");
    expect(tab.consoleProblems).toEqual([]);
    await context.close();
  }, 180_000);
});
