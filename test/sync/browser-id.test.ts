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
