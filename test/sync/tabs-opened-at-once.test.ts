/**
 * A lone tab pays no wait only when it is alone: two tabs of one name opened at the same instant
 * must not both take themselves for the only one. Each asked the lock state before it asked for
 * its own tab lock, so when the browser served both queries before either request (two pages'
 * messages to the lock manager, interleaved), neither saw the other, and each was in sync at once
 * on its own doc, without what the other held. Each tab's lock is now asked for before its query:
 * whichever query comes second sees the first tab. Real Y.Docs and BroadcastChannel; a lock
 * manager that serves the two pages' messages in turn.
 */
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs } from "../../src/sync/index.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.unstubAllGlobals();
});

/** One browser's Web Locks, reached by each page through a pipe of its own, served one message per page in turn. */
function interleavedLocks() {
  const held = new Set<string>();
  const pipes: (() => void)[][] = [];
  const page = () => {
    const pipe: (() => void)[] = [];
    pipes.push(pipe);
    return {
      request: (name: string, _options: unknown, callback: () => Promise<void>) =>
        new Promise((resolve, reject) =>
          pipe.push(() => {
            held.add(name);
            Promise.resolve(callback())
              .finally(() => held.delete(name))
              .then(resolve, reject);
          }),
        ),
      query: () =>
        new Promise<{ held: { name: string }[] }>((resolve) => pipe.push(() => resolve({ held: [...held].map((name) => ({ name })) }))),
    };
  };
  const serve = () => {
    while (pipes.some((pipe) => pipe.length > 0)) for (const pipe of pipes) pipe.shift()?.();
  };
  return { page, serve };
}

it("two tabs of one name opened at once: neither is in sync before it has what the other holds", async () => {
  const name = `at-once-${Math.random().toString(36).slice(2)}`;
  const locks = interleavedLocks();
  const tabs = ["a", "b"].map((own) => {
    vi.stubGlobal("navigator", { locks: locks.page() });
    const doc = new Y.Doc();
    doc.getMap("m").set(own, true); // what this tab holds that the other does not
    const conn = connectTabs(doc, { name, indexeddb: false });
    cleanups.push(() => (conn.destroy(), doc.destroy()));
    const seen = { synced: false, other: false };
    void conn.whenSynced.then(() => Object.assign(seen, { synced: true, other: doc.getMap("m").has(own === "a" ? "b" : "a") }));
    return seen;
  });
  locks.serve();
  await vi.waitFor(() => expect(tabs.every((t) => t.synced)).toBe(true));
  expect(tabs).toEqual([
    { synced: true, other: true },
    { synced: true, other: true },
  ]);
});
