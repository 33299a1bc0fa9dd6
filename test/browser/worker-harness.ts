/**
 * Harness for the connectBrowser (SharedWorker) browser tests and bench/browser-worker.ts: builds
 * test/browser/worker-page with Vite (its SharedWorker bundled as an ES module worker), opens tabs
 * on it, reads the sync server's socket counts and each realm's IndexedDB opens.
 */
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext } from "playwright-core";
import { buildPage, Tab } from "./harness.ts";
import type { CountingHost } from "./host.ts";

const pageRoot = fileURLToPath(new URL("./worker-page/", import.meta.url));

export function buildWorkerPage(): Promise<{ dir: string; remove: () => Promise<void> }> {
  // The replica imports the program resolver lazily: an ES module worker keeps that chunk split.
  return buildPage(pageRoot, "shared-fetch-worker-page-", { worker: { format: "es" } });
}

export type WorkerPageConfig = {
  api: string;
  tabs: string;
  leaseMs?: number;
  ws?: string;
  room?: string;
  /** `next-build`: the worker script of a later deploy (another bundle, at another URL); `throws`: one that throws as it starts. */
  worker?: "absent" | "missing" | "next-build" | "throws";
  standby?: "off";
};

export function workerPageUrl(host: CountingHost, config: WorkerPageConfig): string {
  const q = new URLSearchParams({ api: config.api, tabs: config.tabs });
  if (config.leaseMs !== undefined) q.set("lease", String(config.leaseMs));
  if (config.ws) q.set("ws", config.ws);
  if (config.room) q.set("room", config.room);
  if (config.worker) q.set("worker", config.worker);
  if (config.standby) q.set("standby", config.standby);
  return `${host.origin}/?${q}`;
}

export async function openWorkerTabs(
  context: BrowserContext,
  host: CountingHost,
  config: WorkerPageConfig,
  n: number,
  prefix = "tab",
): Promise<Tab[]> {
  const pages = await Promise.all(Array.from({ length: n }, () => context.newPage()));
  const tabs = pages.map((page, i) => new Tab(page, context, `${prefix}${i}`));
  await Promise.all(tabs.map((t) => t.page.goto(workerPageUrl(host, config), { waitUntil: "domcontentloaded" })));
  await Promise.all(tabs.map((t) => t.ready()));
  return tabs;
}

export function mode(tab: Tab): Promise<string | undefined> {
  return tab.page.evaluate(() => (window as unknown as { __mode?: string }).__mode);
}

/** Why the tab is a replica of its own (connectBrowser's modeReason). */
export function modeReason(tab: Tab): Promise<string | undefined> {
  return tab.page.evaluate(() => (window as unknown as { __modeReason?: string }).__modeReason);
}

/** IndexedDB opens: this tab's own, and each worker's as the worker announced them. */
export function idbOpens(tab: Tab): Promise<{ tab: number; workers: Record<string, number> }> {
  return tab.page.evaluate(() => (window as unknown as { __idbOpens: { tab: number; workers: Record<string, number> } }).__idbOpens);
}

/** Sockets at the sync server (bin/sync-server.mjs GET /stats): open now, and accepted in all. */
export async function socketStats(wsUrl: string): Promise<{ open: number; total: number }> {
  const res = await fetch(`${wsUrl.replace(/^ws/, "http")}/stats`);
  return (await res.json()) as { open: number; total: number };
}

/** JS heap in use by a page's main realm (CDP Runtime.getHeapUsage), in bytes. */
export async function pageHeap(tab: Tab): Promise<number> {
  const cdp = await tab.context.newCDPSession(tab.page);
  try {
    await cdp.send("HeapProfiler.collectGarbage").catch(() => {});
    const { usedSize } = await cdp.send("Runtime.getHeapUsage");
    return usedSize;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** JS heap in use by each live SharedWorker of the browser (CDP, through the browser target), in bytes. */
export async function workerHeaps(browser: Browser): Promise<number[]> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { targetInfos } = await cdp.send("Target.getTargets");
    const out: number[] = [];
    for (const target of targetInfos.filter((t) => t.type === "shared_worker")) {
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId: target.targetId, flatten: false });
      const ask = (id: number, method: string) =>
        new Promise<Record<string, unknown>>((resolve) => {
          const onMessage = (event: { sessionId?: string; message: string }) => {
            const reply = JSON.parse(event.message) as { id?: number; result?: Record<string, unknown> };
            if (event.sessionId !== sessionId || reply.id !== id) return;
            cdp.off("Target.receivedMessageFromTarget", onMessage);
            resolve(reply.result ?? {});
          };
          cdp.on("Target.receivedMessageFromTarget", onMessage);
          void cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method }) });
        });
      await ask(1, "HeapProfiler.collectGarbage");
      const usage = await ask(2, "Runtime.getHeapUsage");
      if (typeof usage.usedSize === "number") out.push(usage.usedSize);
      await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
    }
    return out;
  } finally {
    await cdp.detach().catch(() => {});
  }
}
