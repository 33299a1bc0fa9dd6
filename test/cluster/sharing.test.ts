import { describe, expect, it } from "vitest";
import { until } from "../sync/wait.ts";
import { peer, uniqueRoom, useCluster, when } from "./harness.ts";

const env = useCluster();

describe("peers on different Hocuspocus instances of one cluster (Redis, Postgres, 127.0.0.1)", () => {
  it("share one request: the second peer waits on the first one's claim, which crossed instances", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const room = uniqueRoom("share");
    const req = { url: host.url(`/${room}/items`) };
    const a = peer(cluster, room, [cluster.urls[0]!]);
    const b = peer(cluster, room, [cluster.urls[1]!]);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);

    host.hold = true;
    const first = a.store.ensure(req);
    await when(b.store, req, () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);
    const second = b.store.ensure(req);
    host.release();
    const [fromA, fromB] = await Promise.all([first, second]);
    expect(fromA).toMatchObject({ status: "success", data: { n: 1 } });
    expect(fromB).toMatchObject({ status: "success", data: { n: 1 } });
    expect(host.count(`/${room}/items`)).toBe(1);
  });

  it("a departing peer's claim is taken over through its presence removal across instances, long before the lease", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const room = uniqueRoom("depart");
    const path = `/${room}/items`;
    const req = { url: host.url(path) };
    const LEASE = 120_000; // far beyond the test timeout: only the presence removal can explain a takeover
    // `a` is the only client of the room on instance 0: the case the stock Redis extension drops.
    const a = peer(cluster, room, [cluster.urls[0]!], { leaseMs: LEASE });
    const b = peer(cluster, room, [cluster.urls[1]!], { leaseMs: LEASE });
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    // b knows a's replica by its presence (the store publishes it in awareness).
    await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().get(a.doc.clientID)?.sharedFetch !== undefined);

    host.hold = true;
    void a.store.ensure(req).catch(() => {});
    await host.whenCount(path, 1);
    await when(b.store, req, () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);
    const waiting = b.store.ensure(req);
    // A closed laptop: the socket goes, no orderly release, the claim stays in the doc.
    a.conn.websocket.disconnect();
    await host.whenCount(path, 2); // b's takeover
    expect(host.count(path)).toBe(2);
    host.release();
    await expect(waiting).resolves.toMatchObject({ status: "success" });
    expect(b.store.snapshot(req).claim).toBeUndefined();
  });
});
