import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../src/index.ts";
import { IDLE_STATES } from "../src/core/job.ts";
import { wiredDocs } from "./harness/replicas.ts";

const stores: SharedFetchStoreWithExtras[] = [];
afterEach(() => {
  stores.splice(0).forEach((s) => s.destroy());
  vi.useRealTimers();
});

describe("invariant 1: under load every ask ends in its outcome, with one request per key", () => {
  it(`a replica asked for more keys at once than it keeps idle states (${IDLE_STATES}) answers every one`, async () => {
    let requests = 0;
    const store = createSharedFetchStore({
      doc: new Y.Doc(),
      locks: null,
      fetch: async () => new Response(JSON.stringify(++requests)),
    });
    stores.push(store);
    const keys = IDLE_STATES + 200;
    const snaps = await Promise.all(Array.from({ length: keys }, (_, i) => store.ensure({ url: `https://api.example.test/many/${i}` })));
    expect(snaps.filter((s) => s.status === "success")).toHaveLength(keys);
    expect(requests).toBe(keys);
  }, 60_000); // a thousand keys: seconds of real time on a loaded machine

  it("8 replicas asking 100 keys at once, each update delivered as its own task: 1 request per key", async () => {
    vi.useFakeTimers();
    let requests = 0;
    const host: typeof fetch = async () => {
      requests++;
      await new Promise((r) => setTimeout(r, 20));
      return new Response("1");
    };
    const docs = wiredDocs(8);
    stores.push(...docs.map((doc) => createSharedFetchStore({ doc, locks: null, fetch: host })));
    const keys = 100;
    const all = Promise.all(
      stores.flatMap((s) => Array.from({ length: keys }, (_, i) => s.ensure({ url: `https://api.example.test/load/${i}` }))),
    );
    let settled = false;
    void all.then(() => (settled = true));
    for (let i = 0; i < 100 && !settled; i++) await vi.advanceTimersByTimeAsync(100);
    const snaps = await all;
    expect(snaps.every((s) => s.status === "success")).toBe(true);
    expect(requests).toBe(keys);
  }, 60_000);
});
