import { afterAll, afterEach, beforeAll, inject } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { startHost, type CountingHost } from "./host.ts";
import { launchBrowser } from "./harness.ts";

/**
 * Per test file: one chromium, one counting host serving the page built by global-setup.ts, and a
 * list of contexts to close. Call from beforeAll; call `close()` from afterAll.
 */
export type E2E = {
  browser: Browser;
  host: CountingHost;
  newContext(): Promise<BrowserContext>;
  /** Closes the contexts opened so far (between tests) and drops open responses. */
  closeContexts(): Promise<void>;
  close(): Promise<void>;
};

export async function startE2E(): Promise<E2E> {
  const host = await startHost(inject("e2ePageDir"));
  const browser = await launchBrowser().catch(async (error: unknown) => {
    await host.close();
    throw error;
  });
  const contexts = new Set<BrowserContext>();
  const closeContexts = async () => {
    const all = [...contexts];
    contexts.clear();
    await Promise.all(all.map((c) => c.close().catch(() => {})));
    host.dropOpen();
  };
  return {
    browser,
    host,
    async newContext() {
      const context = await browser.newContext();
      contexts.add(context);
      return context;
    },
    closeContexts,
    async close() {
      await closeContexts();
      await browser.close().catch(() => {});
      await host.close();
    },
  };
}

/** startE2E for the whole file: started before its tests, contexts closed after each, closed after all. */
export function useE2E(): { e2e(): E2E } {
  let e2e: E2E | undefined;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterEach(async () => {
    await e2e?.closeContexts();
  });
  afterAll(async () => {
    await e2e?.close();
  });
  return {
    e2e: () => {
      if (!e2e) throw new Error("useE2E: the browser is not started yet (call e2e() inside a test)");
      return e2e;
    },
  };
}
