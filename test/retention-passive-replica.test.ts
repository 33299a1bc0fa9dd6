/**
 * Retention, "a page that stays open for days": each replica keeps, per key of the doc, when it last
 * saw the key asked for (its own clock: a key's age is how long this replica saw nobody ask). Those
 * clocks were dropped only by this replica's own sweep, which runs when it asks for something. A
 * replica that asks for nothing new (a wall screen whose views are all showing) while other
 * devices ask for keys and sweep them a day later kept a clock for every key it ever saw — and
 * took a sweep's deletion of an ask record for a new ask.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Retention } from "../src/core/retention.ts";
import { linkDocs as link, recordsReplica as replica, type RecordsReplica } from "./harness/doc-records.ts";

const HOUR = 3600_000;
afterEach(() => vi.useRealTimers());

const retentionOf = (r: RecordsReplica, id: string) =>
  new Retention(
    r.records,
    24 * HOUR,
    id,
    () => false,
    (fn) => r.doc.transact(fn),
    () => {},
    () => false,
    () => true,
  );

type Clocks = { since: Map<string, number>; askSeen: Map<string, number> };

describe("retention forgets the keys the doc holds no more, on a replica that asks for nothing", () => {
  it("1 000 keys asked and fetched by another device, then swept by it: the passive replica keeps no clock for any", () => {
    const passive = replica();
    const busy = replica();
    link(passive.doc, busy.doc);
    const watching = retentionOf(passive, "passive");
    for (let i = 0; i < 1000; i++) {
      const key = `k${i}`;
      busy.doc.transact(() => {
        busy.records.asks.set(key, Date.now());
        busy.records.results.set(key, { rev: 1, data: i, at: Date.now() });
      });
      // A day later, nobody asked for it again: the busy device sweeps all of it.
      busy.doc.transact(() => {
        busy.records.asks.delete(key);
        busy.records.results.delete(key);
      });
    }
    const { since, askSeen } = watching as unknown as Clocks;
    expect([since.size, askSeen.size]).toEqual([0, 0]);
    watching.stop();
  });

  it("a key still in the doc keeps its clock (a claim released with its result written is no deletion of the key)", () => {
    const passive = replica();
    const busy = replica();
    link(passive.doc, busy.doc);
    const watching = retentionOf(passive, "passive");
    busy.records.claims.set("k", { replicaId: "busy", nonce: "n1", rev: 1, leaseMs: 5000 });
    busy.doc.transact(() => {
      busy.records.results.set("k", { rev: 1, data: 1, at: Date.now() });
      busy.records.claims.delete("k");
    });
    const { since, askSeen } = watching as unknown as Clocks;
    expect([since.has("k"), askSeen.has("k")]).toEqual([true, true]);
    watching.stop();
  });

  it("an ask of ours still waiting to be written survives another replica's sweep of the key (it is written, and the key lives on)", () => {
    vi.useFakeTimers();
    const mine = replica();
    const sweeper = replica();
    link(mine.doc, sweeper.doc);
    const retention = retentionOf(mine, "mine");
    sweeper.records.asks.set("k", 1);
    vi.advanceTimersByTime(3 * HOUR); // long enough ago that our ask is recorded again
    retention.touch("k");
    sweeper.records.asks.delete("k"); // its sweep crossed our ask
    vi.advanceTimersByTime(1000);
    expect(sweeper.records.asks.get("k")).toBeTypeOf("number");
    retention.stop();
  });
});
