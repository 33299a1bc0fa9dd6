/**
 * "Storage that does not grow with history": a replica removes its own emptied lanes. A lane whose
 * last entry another replica overwrote while it was still the writer's current lane used to be
 * left in the doc for good once the writer moved on to its next lane (nothing changed in it any
 * more, so nothing queued its removal). Two tabs taking turns on one polled key (each poll
 * overwrites the other's record) left an empty lane per LANE_CAP writes of each: the doc, and
 * every replica's memory, grew with the number of polls for as long as the page stayed open.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { ROOT } from "../src/core/doc-records.ts";
import { LANE_CAP } from "../src/core/lanes.ts";
import { linkDocs as link, recordsReplica as replica } from "./harness/doc-records.ts";

const lanesOf = (doc: Y.Doc) => doc.getArray<Y.Array<unknown>>(ROOT).toArray();

describe("a writer's emptied lanes are removed, the current one's too once it moves on", () => {
  it(`two replicas overwriting one record in turn for 20 × LANE_CAP rounds: the doc keeps about one lane each, not one per ${LANE_CAP} writes`, async () => {
    const a = replica();
    const b = replica();
    link(a.doc, b.doc);
    for (let i = 0; i < 20 * LANE_CAP; i++) {
      a.records.asks.set("k", 2 * i);
      b.records.asks.set("k", 2 * i + 1);
      // The removal of an emptied lane is deferred out of the transaction (a microtask).
      await Promise.resolve();
    }
    await Promise.resolve();
    expect(b.records.asks.get("k")).toBe(40 * LANE_CAP - 1);
    // Both current lanes, and at most one more on its way out.
    for (const doc of [a.doc, b.doc]) {
      const lanes = lanesOf(doc);
      expect(lanes.length).toBeLessThanOrEqual(3);
      expect(lanes.filter((lane) => lane.length === 0).length).toBeLessThanOrEqual(2);
    }
  });
});
