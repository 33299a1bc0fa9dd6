/**
 * README, Next.js App Router: a store of its own for each server render, never destroyed, lets the
 * render end with its work. Where the runtime has `navigator.locks` without being a page or a
 * worker (Node 24.5+: one lock manager for the whole process), a store made there takes no Web
 * Lock by default: each one held its replica lock for the process's life, one more for every
 * render. Given `locks` explicitly (worker threads of one process), it uses them.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type LockManagerLike } from "../src/index.ts";
import { browserLocks } from "./harness/browser-locks.ts";

const URL_A = "https://api.example.com/a";
const fetch = async () => new Response('{"n":1}', { headers: { "content-type": "application/json" } });
afterEach(() => vi.unstubAllGlobals());

async function heldAfterRender(withLocks: "default" | "given"): Promise<string[]> {
  const locks = browserLocks();
  vi.stubGlobal("navigator", { locks, userAgent: "Node.js/24" });
  const store = createSharedFetchStore({
    doc: new Y.Doc(),
    fetch,
    settleMs: 0,
    ...(withLocks === "given" ? { locks: locks as LockManagerLike } : {}),
  });
  expect((await store.ensure({ url: URL_A })).data).toEqual({ n: 1 });
  // The render is over; the store is left as the README's server branch leaves it: not destroyed.
  const { held } = await locks.query();
  return held.map((lock) => lock.name);
}

describe("a server render's store in a runtime with process-wide Web Locks (Node 24.5+)", () => {
  it("takes no Web Lock by default: nothing stays held after the render", async () => {
    expect(typeof (globalThis as { document?: unknown }).document).toBe("undefined");
    expect(await heldAfterRender("default")).toEqual([]);
  });

  it("uses the locks it is given", async () => {
    expect(await heldAfterRender("given")).toContainEqual(expect.stringMatching(/^shared-fetch:replica:/));
  });
});
