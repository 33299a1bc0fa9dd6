import { afterEach, describe, expect, it, vi } from "vitest";

const storageKey = "shared-fetch:browser-id";

// getBrowserId caches per module instance, so each case loads a fresh one.
async function freshGetBrowserId(): Promise<() => string> {
  vi.resetModules();
  return (await import("../../src/core/browser-id.ts")).getBrowserId;
}

function fakeStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("getBrowserId", () => {
  it("is stable within a module instance without localStorage (Node)", async () => {
    const getBrowserId = await freshGetBrowserId();
    const id = getBrowserId();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(getBrowserId()).toBe(id);
    expect(await freshGetBrowserId().then((get) => get())).not.toBe(id);
  });

  it("creates, stores and then reuses the id in localStorage", async () => {
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    const id = (await freshGetBrowserId())();
    expect(storage.items.get(storageKey)).toBe(id);
    // Another tab of the same origin: a new module instance, the same storage.
    expect((await freshGetBrowserId())()).toBe(id);
  });

  it("uses an id already stored by another tab", async () => {
    vi.stubGlobal("localStorage", fakeStorage({ [storageKey]: "stored-id" }));
    expect((await freshGetBrowserId())()).toBe("stored-id");
  });

  it("falls back to a random id when localStorage throws", async () => {
    vi.stubGlobal("localStorage", {
      getItem: () => {
        throw new DOMException("denied", "SecurityError");
      },
    });
    expect((await freshGetBrowserId())()).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("agreeBrowserId: one browser id per browser, on the first visit too (issue: time to data)", () => {
  it("tabs that stored different tentative ids at once all adopt the first one recorded under the lock", async () => {
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    vi.resetModules();
    const { agreeBrowserId } = await import("../../src/core/browser-id.ts");
    const { FakeLocks } = await import("../../sim/fake-locks.ts");
    const locks = new FakeLocks();
    // Both tabs read an empty storage and stored their own id before either saw the other's.
    storage.setItem("shared-fetch:browser-id", "tab-b");
    const agreed = await Promise.all([
      agreeBrowserId(locks.forTab("a"), "tab-a"),
      agreeBrowserId(locks.forTab("b"), "tab-b"),
      agreeBrowserId(locks.forTab("c"), "tab-c"),
    ]);
    expect(new Set(agreed).size).toBe(1);
    expect(agreed[0]).toBe("tab-a");
    expect(storage.items.get("shared-fetch:browser-id")).toBe("tab-a");
    // A tab opened later reads it too.
    await expect(agreeBrowserId(locks.forTab("d"), "tab-d")).resolves.toBe("tab-a");
  });

  it("a returning visit adopts the recorded id without a lock round trip (the first claim waits for none)", async () => {
    vi.stubGlobal("localStorage", fakeStorage({ "shared-fetch:browser-id:agreed": "agreed-long-ago" }));
    vi.resetModules();
    const { agreeBrowserId, getBrowserId } = await import("../../src/core/browser-id.ts");
    let requested = 0;
    const neverGranted = {
      request: () => {
        requested += 1;
        return new Promise<unknown>(() => {});
      },
    };
    await expect(agreeBrowserId(neverGranted, "tentative")).resolves.toBe("agreed-long-ago");
    expect(requested).toBe(0);
    expect(getBrowserId()).toBe("agreed-long-ago");
  });

  it("tabs whose localStorage has not seen each other's writes (other processes) still agree: the id lock's name tells", async () => {
    // A browser's lock state: exclusive requests of one name run in turn; shared ones are held for good.
    const held = new Set<string>();
    let turn = Promise.resolve();
    const browserLocks = {
      request: (name: string, options: { mode?: string }, callback: (lock: unknown) => unknown) => {
        if (options.mode === "shared") {
          held.add(name);
          return Promise.resolve(callback({ name }));
        }
        const run = turn.then(() => callback({ name }));
        turn = run.then(
          () => {},
          () => {},
        );
        return run;
      },
      query: async () => ({ held: [...held].map((name) => ({ name })) }),
    };
    const agreeIn = async (storage: ReturnType<typeof fakeStorage>, tentative: string) => {
      vi.stubGlobal("localStorage", storage);
      vi.resetModules(); // each tab its own module instance
      const { agreeBrowserId } = await import("../../src/core/browser-id.ts");
      return agreeBrowserId(browserLocks, tentative);
    };
    const first = await agreeIn(fakeStorage(), "tab-a");
    // The second tab's process has not received the first tab's localStorage write yet.
    const second = await agreeIn(fakeStorage(), "tab-b");
    expect(first).toBe("tab-a");
    expect(second).toBe("tab-a");
    expect([...held]).toEqual(["shared-fetch:browser-id:tab-a"]);
  });
});

describe("the id lock and the back/forward cache (page-lifecycle: a held lock keeps a page out of it)", () => {
  it("goes on pagehide and is held again on a pageshow from the cache; a returning visit holds it without waiting for it", async () => {
    vi.stubGlobal("localStorage", fakeStorage({ "shared-fetch:browser-id:agreed": "agreed-long-ago" }));
    const page = new EventTarget();
    vi.stubGlobal("window", page);
    vi.resetModules();
    const { agreeBrowserId } = await import("../../src/core/browser-id.ts");
    // Shared locks held until their callback's promise settles; the state readable, as a browser's.
    const held = new Set<string>();
    const browserLocks = {
      request: (name: string, _options: { mode?: string }, callback: (lock: unknown) => unknown) => {
        held.add(name);
        return Promise.resolve(callback({ name })).finally(() => held.delete(name));
      },
      query: async () => ({ held: [...held].map((name) => ({ name })) }),
    };
    const settle = () => new Promise((r) => setTimeout(r, 0));
    await expect(agreeBrowserId(browserLocks, "tentative")).resolves.toBe("agreed-long-ago");
    await settle();
    expect([...held]).toEqual(["shared-fetch:browser-id:agreed-long-ago"]);
    page.dispatchEvent(new Event("pagehide"));
    await settle();
    expect([...held]).toEqual([]);
    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    await settle();
    expect([...held]).toEqual(["shared-fetch:browser-id:agreed-long-ago"]);
  });
});
