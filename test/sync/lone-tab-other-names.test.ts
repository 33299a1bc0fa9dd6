/**
 * Issue "time to data", no tax when alone: a tab that is the only one on its channel is in sync at
 * once, with no wait for answers, even while the origin has other shared-fetch replicas alive —
 * another doc of the same page (one name per team), another app of the origin, their stores. Only
 * a tab of the same name can answer; another name's never does. A replica with no tab lock at all
 * (a tab of a version before tab locks) may still be one of this name's tabs: it is waited for.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { REPLICA_LOCK_PREFIX } from "../../src/core/locks.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { TAB_LOCK_PREFIX } from "../../src/sync/tab-flush.ts";
import { browserLocks } from "../harness/browser-locks.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const uniqueName = (): string => `lone-${Math.random().toString(36).slice(2)}`;

function openTab(name: string): { synced: boolean } {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, indexeddb: false });
  cleanups.push(() => (conn.destroy(), doc.destroy()));
  const state = { synced: false };
  void conn.whenSynced.then(() => (state.synced = true));
  return state;
}

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe("a lone tab on its channel pays no wait", () => {
  it("beside another name's connection in the same page, and its store's replica lock: in sync with no timer run", async () => {
    // The page's first doc (another team's, or public data) is connected and its store holds its lock.
    vi.stubGlobal("navigator", { locks: browserLocks([`${REPLICA_LOCK_PREFIX}store-of-team-a`]) });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    openTab(uniqueName());
    const lone = openTab(uniqueName());
    await turns();
    expect(lone.synced).toBe(true);
  });

  it("while another app of the origin is open in other tabs (their tab and replica locks held)", async () => {
    const otherApp = uniqueName();
    vi.stubGlobal("navigator", {
      locks: browserLocks([`${TAB_LOCK_PREFIX}${otherApp}#n1`, `${REPLICA_LOCK_PREFIX}r1`, `${TAB_LOCK_PREFIX}${otherApp}#n2`]),
    });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const lone = openTab(uniqueName());
    await turns();
    expect(lone.synced).toBe(true);
  });

  it('a tab of a name that extends this one past a \'#\' ("app#2" beside "app") is another channel\'s: not waited for', async () => {
    const name = uniqueName();
    // Tab locks are `<prefix><name>#<nonce>`: "app#2"'s read as "app"'s by prefix alone.
    vi.stubGlobal("navigator", { locks: browserLocks([`${TAB_LOCK_PREFIX}${name}#2#its-nonce`]) });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const lone = openTab(name);
    await turns();
    expect(lone.synced).toBe(true);
  });

  it("a live tab of the same name, or a replica holding no tab lock (an older version's tab), is waited for", async () => {
    const name = uniqueName();
    for (const held of [
      [`${TAB_LOCK_PREFIX}${name}#silent`, `${REPLICA_LOCK_PREFIX}its-store`],
      [`${REPLICA_LOCK_PREFIX}older-version-tab`],
    ]) {
      vi.stubGlobal("navigator", { locks: browserLocks(held) });
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      const tab = openTab(name);
      await turns();
      expect(tab.synced, held[0]).toBe(false);
      await vi.advanceTimersByTimeAsync(250); // no answer comes (the holder is silent here): the bound decides
      expect(tab.synced, held[0]).toBe(true);
      vi.useRealTimers();
    }
  });
});
