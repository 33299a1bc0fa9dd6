/**
 * Issue 10 (time to data): a key asked for once the store is in sync is claimed within the
 * `ensure` call. While a page boots, every promise hop between "in sync" and the claim lets the
 * page's first render work run first; a store that already knows it is in sync takes none.
 * Before the sync, nothing is claimed (the boot-sync rule: test/sync/tabs-boot-sync.test.ts).
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { registerConnector } from "../src/core/connectors.ts";
import { createSharedFetchStore, type StoreEvent } from "../src/index.ts";

const req = { url: "https://api.example.test/boot" };
const answer = (async () => new Response('{"ok":true}', { headers: { "content-type": "application/json" } })) as typeof fetch;

describe("a claim asked for once in sync", () => {
  it("is written before ensure returns; one asked for before the sync waits for it", async () => {
    const doc = new Y.Doc();
    let synced!: () => void;
    const whenSynced = new Promise<void>((resolve) => (synced = resolve));
    registerConnector(doc, { whenSynced, crossDevice: false });
    const store = createSharedFetchStore({ doc, fetch: answer, locks: null });
    const claimed: string[] = [];
    store.onEvent((event: StoreEvent) => {
      if (event.type === "claimed") claimed.push(event.key);
    });

    const early = store.ensure({ url: `${req.url}?early` });
    await Promise.resolve();
    expect(claimed).toHaveLength(0); // not in sync: no claim
    synced();
    await whenSynced;
    await expect(early).resolves.toMatchObject({ status: "success" });
    expect(claimed).toHaveLength(1);

    const late = store.ensure(req);
    expect(claimed).toHaveLength(2); // synchronously, inside ensure
    await expect(late).resolves.toMatchObject({ status: "success", data: { ok: true } });
    store.destroy();
  });

  it("a store created after its connectors synced claims within its first ensure", async () => {
    const doc = new Y.Doc();
    const whenSynced = Promise.resolve();
    registerConnector(doc, { whenSynced, crossDevice: false });
    await whenSynced;
    const store = createSharedFetchStore({ doc, fetch: answer, locks: null });
    const claimed: string[] = [];
    store.onEvent((event: StoreEvent) => {
      if (event.type === "claimed") claimed.push(event.key);
    });
    const asked = store.ensure(req);
    expect(claimed).toHaveLength(1);
    await expect(asked).resolves.toMatchObject({ status: "success" });
    store.destroy();
  });
});
