/**
 * Retention, "a replica that is gone must not cost memory for ever": a long-lived replica notes
 * when it last saw each replica's heartbeat change (retention's clock for heartbeat records). When
 * another replica swept a departed replica's heartbeat, the deletion was noted as one more change:
 * the entry came back and stayed, since only heartbeats still in the doc are ever looked at again.
 * A dashboard open for a week beside other long-lived replicas kept one entry per tab that ever
 * ran a request and closed.
 */
import { describe, expect, it } from "vitest";
import { Retention } from "../src/core/retention.ts";
import { linkDocs, recordsReplica as replica } from "./harness/doc-records.ts";

describe("retention forgets departed replicas whose heartbeats another replica swept", () => {
  it("1 000 visitors beat and are swept by another replica: the long-lived replica keeps no entry for any of them", () => {
    const a = replica();
    const sweeper = replica();
    linkDocs(a.doc, sweeper.doc);
    const retention = new Retention(
      a.records,
      24 * 3600_000,
      "a",
      () => false,
      (fn) => a.doc.transact(fn),
      () => {},
      () => false,
      () => true,
    );
    for (let i = 0; i < 1000; i++) {
      const id = `visitor-${i}`;
      // The visitor's heartbeat reaches both (its own doc is not needed: the sweeper relays it).
      sweeper.records.beats.set(id, { n: 1, nonces: [] });
      // A day later the sweeper removes it: the visitor is long gone.
      sweeper.records.beats.delete(id);
    }
    expect(a.records.beats.keys()).toEqual([]);
    const seen = (retention as unknown as { beatSince: Map<string, number> }).beatSince;
    expect(seen.size).toBe(0);
    retention.stop();
  });
});
