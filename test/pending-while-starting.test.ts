/**
 * Invariant 8 (pending is truthful): a key asked for while the store is still starting (its
 * connectors' initial sync not done, no claim written yet) is pending for every reader of this
 * replica — never "idle", which says nothing is being done — and its subscribers hear of it.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { registerConnector } from "../src/core/connectors.ts";

describe("asked for before the store is in sync", () => {
  it("is pending, not idle, and the subscriber is told; an aborted ask leaves it idle again", async () => {
    const doc = new Y.Doc();
    let synced!: () => void;
    registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
    const calls: string[] = [];
    const fetch = (async (input: RequestInfo | URL) => {
      calls.push(String(input));
      return new Response('{"ok":true}', { headers: { "content-type": "application/json" } });
    }) as typeof globalThis.fetch;
    const store = createSharedFetchStore({ doc, fetch, locks: null });
    const req = { url: "https://api.example.test/starting" };
    let notified = 0;
    store.subscribe(req, () => notified++);
    expect(store.snapshot(req).status).toBe("idle");

    const controller = new AbortController();
    const aborted = store.ensure(req, { signal: controller.signal });
    expect(store.snapshot(req).status).toBe("pending");
    expect(notified).toBe(1);
    expect(store.claims()).toHaveLength(0); // nothing claimed: the store is not in sync yet
    controller.abort();
    await expect(aborted).rejects.toThrow();
    expect(store.snapshot(req).status).toBe("idle");

    const asked = store.ensure(req);
    expect(store.snapshot(req).status).toBe("pending");
    synced();
    await expect(asked).resolves.toMatchObject({ status: "success", data: { ok: true } });
    expect(calls).toHaveLength(1);
    store.destroy();
  });
});
