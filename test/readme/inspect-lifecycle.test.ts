// @vitest-environment jsdom
/**
 * README, "Public surface": `store.inspect().lifecycle` is `starting` while the store's first
 * claims wait for its Web Lock and its connectors' initial sync, `ready` once they may go,
 * `suspended` while its page is hidden for good or frozen (pagehide, freeze: its claims let go),
 * and `destroyed` after `destroy()`, the devtools' "store destroyed" header reading it. Real Y.Doc,
 * the simulated host; the page's events dispatched on jsdom's window and document.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";

const stores: SharedFetchStoreWithExtras[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.destroy()));

function make(): SharedFetchStoreWithExtras {
  const store = createSharedFetchStore({ doc: new Y.Doc(), fetch: new Host().fetch, locks: null });
  stores.push(store);
  return store;
}

describe("README, Public surface: inspect().lifecycle", () => {
  it("starting, then ready; suspended at pagehide and back at pageshow from the back/forward cache; destroyed after destroy()", async () => {
    const store = make();
    expect(["starting", "ready"]).toContain(store.inspect().lifecycle);
    await vi.waitFor(() => expect(store.inspect().lifecycle).toBe("ready"));
    window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
    expect(store.inspect().lifecycle).toBe("suspended");
    window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
    await vi.waitFor(() => expect(store.inspect().lifecycle).toBe("ready"));
    store.destroy();
    expect(store.inspect().lifecycle).toBe("destroyed");
  });

  it("a frozen page is suspended too, until it resumes", async () => {
    const store = make();
    await vi.waitFor(() => expect(store.inspect().lifecycle).toBe("ready"));
    document.dispatchEvent(new Event("freeze"));
    expect(store.inspect().lifecycle).toBe("suspended");
    document.dispatchEvent(new Event("resume"));
    await vi.waitFor(() => expect(store.inspect().lifecycle).toBe("ready"));
  });
});
