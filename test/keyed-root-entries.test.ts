/**
 * Invariant 14, and every replica reading the doc alike: a peer whose doc took the lanes' root for
 * a Y.Map (or that sets entries by key in a lane) puts in values that are no elements of the
 * Y.Array. A replica that was running when they arrived took a Y.Array set that way for a lane and
 * believed its records, while one that read the same doc at its start never saw them: two tabs
 * showed different data for one key. Now neither reads them (no replica's doc shows them as
 * elements; listing them too would cost every bundle about 100 B).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { ROOT, TABLES } from "../src/internals.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

describe("invariant 14: entries set by key where the lanes hold elements", () => {
  it("a running replica and one started on the same doc both ignore them and show the same snapshot", async () => {
    const c = cluster(1);
    const [live] = c.stores;
    const key = live!.keyOf(req);
    const peer = c.net.add(new Y.Doc());
    const lane = new Y.Array<unknown>();
    lane.push([{ t: TABLES.results, k: key, v: { rev: 5, data: "from a keyed lane" }, s: 1 }]);
    peer.transact(() => {
      const asMap = peer.getMap<unknown>(ROOT);
      asMap.set("lane", lane);
      asMap.set("record", { t: TABLES.results, k: key, v: { rev: 6, data: "keyed record" }, s: 1 });
    });
    await tick();
    const started = c.join();
    await tick();
    for (const store of [live!, started]) {
      expect(store.snapshot(req)).toEqual({ status: "idle" });
      expect(store.claims()).toEqual([]);
      expect(store.inspect().keys).toEqual([]);
    }
    // Work on the key goes on as if they were not there.
    c.host.auto = () => ({ status: 200, body: "fetched" });
    await expect(until(started.ensure(req))).resolves.toEqual({ status: "success", data: "fetched" });
    expect(live!.snapshot(req)).toEqual({ status: "success", data: "fetched" });
  });
});
