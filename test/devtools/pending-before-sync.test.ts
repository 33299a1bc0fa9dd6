import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { background, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

describe("devtools: a key asked for before the store is in sync", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("counts as pending, as the store's own snapshot says (invariant 8), never idle", async () => {
    const doc = new Y.Doc();
    // A sync server that accepted the socket and never answers: the first claim waits the cap.
    registerConnector(doc, { whenSynced: new Promise<void>(() => {}), crossDevice: true });
    const store = createSharedFetchStore({ doc, locks: null, fetch: () => new Promise<never>(() => {}) });
    const model = createDevtoolsModel(store);
    background(store.ensure(req));
    await tick(10);
    expect(store.snapshot(req).status).toBe("pending");
    const snap = model.getSnapshot();
    expect(snap.keys[0]).toMatchObject({ waitsForSync: true, status: "pending" });
    expect(snap.counts).toMatchObject({ pending: 1, idle: 0 });
    model.destroy();
    store.destroy();
  });
});
