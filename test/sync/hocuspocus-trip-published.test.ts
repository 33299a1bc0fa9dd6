/**
 * README, Design notes ("Across devices, the sync server's order decides"): each connector
 * publishes its 95th-percentile trip in its awareness (`sharedFetchTrip`) for the other devices'
 * windows; connectHocuspocus, whose trips are its updates' acks, publishes it rounded up to 10 ms and
 * only when that changes, not at every ack (an awareness message per write would double the
 * traffic). A real Hocuspocus instance on 127.0.0.1.
 */
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { TRIP_FIELD } from "../../src/sync/connection.ts";
import { hocuspocusPerFile } from "./hocuspocus-per-file.ts";

const { server } = hocuspocusPerFile();

describe("connectHocuspocus publishes its trip (README: rounded up to 10 ms, when that changes)", () => {
  it("20 acked writes publish a few multiples of 10 ms, each different from the one before", async () => {
    const doc = new Y.Doc();
    const conn = connectHocuspocus(doc, {
      url: server().url,
      room: `trip-${Math.random().toString(36).slice(2)}`,
      token: "t",
      WebSocketPolyfill: WebSocket,
    });
    const published: unknown[] = [];
    conn.awareness.on("update", (_: unknown, origin: unknown) => {
      const trip = conn.awareness.getLocalState()?.[TRIP_FIELD];
      if (origin === "local" && trip !== undefined) published.push(trip);
    });
    const unsynced = () => conn.provider.unsyncedChanges;
    try {
      await conn.whenSynced;
      const writes = 20;
      for (let i = 0; i < writes; i++) {
        doc.getMap("m").set("k", i); // one update, acked by the instance: one trip each
        await vi.waitFor(() => expect(unsynced()).toBe(0), { timeout: 5000, interval: 5 });
      }
      expect(published.length).toBeGreaterThan(0);
      expect(published.length).toBeLessThan(writes);
      for (const ms of published) expect(typeof ms === "number" && ms > 0 && ms % 10 === 0, `published ${String(ms)}`).toBe(true);
      for (let i = 1; i < published.length; i++) expect(published[i]).not.toBe(published[i - 1]);
    } finally {
      conn.destroy();
      doc.destroy();
    }
  });
});
