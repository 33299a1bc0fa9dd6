/**
 * One test file's SharedWorker page in real chromium: the worker page built, the counting host
 * serving it and chromium, each made once for the file (vitest hooks registered here); contexts
 * made by `newContext` close after each test, and the host drops what it still holds open.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { launchBrowser } from "./harness.ts";
import { startHost, type CountingHost } from "./host.ts";
import { buildWorkerPage } from "./worker-harness.ts";

export function workerPageFixture(): { host: () => CountingHost; newContext: () => Promise<BrowserContext> } {
  let page: Awaited<ReturnType<typeof buildWorkerPage>>;
  let host: CountingHost;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    page = await buildWorkerPage();
    host = await startHost(page.dir);
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => {})));
    host.dropOpen();
  });
  afterAll(async () => {
    await browser?.close().catch(() => {});
    await host?.close();
    await page?.remove();
  });
  return {
    host: () => host,
    newContext: async () => {
      const context = await browser.newContext();
      contexts.push(context);
      return context;
    },
  };
}
