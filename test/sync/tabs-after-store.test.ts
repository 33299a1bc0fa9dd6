/**
 * README, Design notes (a store's first claim waits for its connectors' initial sync): "Connect
 * them before making the store, as Usage does. Where there are no Web Locks, a store made before
 * its connectors does not wait for a `connectTabs` made later". In Node (no Web Locks) such a
 * store's first claim goes out at once, though another tab recorded the result; given Web Locks,
 * the same store waits for that later connection's sync and uses the recorded result.
 * (`connectPeers` made later: test/sync/connector-after-store.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";

const teardown: (() => void)[] = [];
afterEach(() => {
  for (const stop of teardown.splice(0).reverse()) stop();
});

const req = { url: "https://api.example.test/tabs-after-store" };

/** Tab A, connected first, with the result recorded; then tab B's store, made before B's connectTabs. */
async function storeBeforeTabs(locks?: FakeLocks) {
  const name = `after-store-${Math.random().toString(36).slice(2)}`;
  const docA = new Y.Doc();
  const tabsA = connectTabs(docA, { name, indexeddb: false });
  const a = createSharedFetchStore({ doc: docA, fetch: async () => Response.json({ by: "a" }) });
  teardown.push(() => (a.destroy(), tabsA.destroy(), docA.destroy()));
  await tabsA.whenSynced;
  await a.ensure(req);

  const docB = new Y.Doc();
  const sent: string[] = [];
  const b = createSharedFetchStore({
    doc: docB,
    fetch: async (input) => (sent.push(String(input)), Response.json({ by: "b" })),
    ...(locks && { locks: locks.forTab("b") }),
  });
  const tabsB = connectTabs(docB, { name, indexeddb: false });
  teardown.push(() => (b.destroy(), tabsB.destroy(), docB.destroy()));
  return { b, sent };
}

describe("README, Design notes · a store made before connectTabs", () => {
  it("where there are no Web Locks, its first claim does not wait for the later connectTabs: it sends its own request", async () => {
    const { b, sent } = await storeBeforeTabs();
    await expect(b.ensure(req)).resolves.toMatchObject({ status: "success", data: { by: "b" } });
    expect(sent).toEqual([req.url]);
  });

  it("given Web Locks, its first claim waits for that connection's sync: the other tab's result is used, nothing sent", async () => {
    const { b, sent } = await storeBeforeTabs(new FakeLocks());
    await expect(b.ensure(req)).resolves.toMatchObject({ status: "success", data: { by: "a" } });
    expect(sent).toEqual([]);
  });
});
