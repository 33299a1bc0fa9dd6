import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedRequest } from "../../src/index.ts";
import { readStoredDocument } from "../../server/cluster/pg-documents.ts";
import { peer, uniqueRoom, useCluster } from "./harness.ts";

const env = useCluster();

/** True once the room as stored in Postgres holds a result for every request. */
async function storedHasResults(connectionString: string, room: string, reqs: SharedRequest[]): Promise<boolean> {
  const doc: Y.Doc | undefined = await readStoredDocument(connectionString, room);
  if (doc === undefined) return false;
  const store = createSharedFetchStore({ doc }); // reads the records through the store's own validation
  try {
    return reqs.every((req) => store.snapshot(req).status === "success");
  } finally {
    store.destroy();
    doc.destroy();
  }
}

describe("documents live in Postgres: the cluster loses nothing it stored", () => {
  it("every process killed and Redis flushed: the recorded results are back after restart, with no new request", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const room = uniqueRoom("durable");
    const reqs = Array.from({ length: 6 }, (_, i) => ({ url: host.url(`/${room}/items/${i}`) }));
    const a = peer(cluster, room, [cluster.urls[0]!]);
    const b = peer(cluster, room, [cluster.urls[1]!]);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    // Results recorded through both instances (each stores what came in through it).
    const recorded = await Promise.all(reqs.map((req, i) => (i % 2 === 0 ? a : b).store.ensure(req)));
    for (const snapshot of recorded) expect(snapshot).toMatchObject({ status: "success" });
    const requestsBefore = host.requests.length;

    // Stores are debounced (250 ms): wait until Postgres really holds them, as a crash would find it.
    while (!(await storedHasResults(cluster.postgres.connectionString, room, reqs))) await new Promise((r) => setTimeout(r, 50));
    a.stop();
    b.stop(); // no peer is left to sync anything back: what comes back comes from Postgres
    await cluster.crashAll(); // instances SIGKILL, Redis FLUSHALL + SIGKILL, Postgres immediate stop
    await cluster.restartAll();

    const late = peer(cluster, room, [cluster.urls[1]!]);
    await late.conn.whenSynced;
    const again = await Promise.all(reqs.map((req) => late.store.ensure(req)));
    expect(again.map((s) => s.data)).toEqual(recorded.map((s) => s.data));
    expect(host.requests.length).toBe(requestsBefore);
  });
});
