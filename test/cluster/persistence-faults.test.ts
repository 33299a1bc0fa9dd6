/**
 * README, Scaling out: "each room is stored in Postgres (… one row per room, merged, never
 * overwritten)". Pinned here under Postgres' and the instances' faults: a Postgres restart or
 * outage takes no instance down and loses no change; two instances storing one room at once both
 * land; a SIGTERM stores what is pending, or exits 1 naming the rooms it could not store.
 */
import { spawnSync } from "node:child_process";
import pg from "pg";
import { describe, expect, it, onTestFinished } from "vitest";
import type { Cluster } from "../../server/cluster/cluster.ts";
import { nextEvent, until } from "../sync/wait.ts";
import {
  docPeer,
  extraInstance,
  peersOnBothInstances,
  storedMap,
  storedPeer,
  uniqueRoom,
  untilAcked,
  untilStored,
  useCluster,
} from "./harness.ts";

const env = useCluster();

/** Holds the room's row locked (as an operator's transaction or a slow disk would) until released. */
async function holdRow(cluster: Cluster, room: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: cluster.postgres.connectionString });
  await client.connect();
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await client.query("COMMIT").catch(() => {});
    await client.end().catch(() => {});
  };
  onTestFinished(release);
  await client.query("BEGIN");
  await client.query("SELECT data FROM shared_fetch_documents WHERE name = $1 FOR UPDATE", [room]);
  return release;
}

/** Resolves once at least `count` Postgres sessions wait on a lock (stores queued on a held row). */
async function lockWaiters(cluster: Cluster, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.postgres.connectionString });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
      if (rows[0]!.n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}

describe("Postgres faults: no instance goes down, no change is lost", () => {
  it("a Postgres restart (the pool's idle connections dropped) leaves the instance up; its next change is stored", async () => {
    const cluster = env.cluster();
    const inst = await extraInstance(cluster, "pg-restart");
    const room = uniqueRoom("pgrestart");
    const a = await storedPeer(cluster, room, [inst.url], "before"); // the pool now holds an idle client
    cluster.postgres.crash();
    cluster.postgres.start();
    a.map.set("after", 1);
    await untilStored(cluster, room, (s) => s.after === 1);
    expect(inst.child.process.exitCode).toBeNull();
  });

  it("a change made while Postgres is down is stored once it is back (retried, not dropped); the instance stays up", async () => {
    const cluster = env.cluster();
    const inst = await extraInstance(cluster, "pg-down");
    const room = uniqueRoom("pgdown");
    const a = await storedPeer(cluster, room, [inst.url], "before");
    cluster.postgres.crash();
    let down = true;
    onTestFinished(() => void (down && cluster.postgres.start()));
    a.map.set("during", 2);
    await untilAcked(a);
    await until(inst.child.process.stderr!, "data", () => /storing room \S+ failed/.test(inst.child.output())); // the store met the outage
    cluster.postgres.start();
    down = false;
    await untilStored(cluster, room, (s) => s.during === 2);
    expect(inst.child.process.exitCode).toBeNull();
  }, 30_000);

  it("a room opened while Postgres is down: its client is told to come back, not refused for good; it syncs once Postgres is back", async () => {
    const cluster = env.cluster();
    const inst = await extraInstance(cluster, "pg-down-load");
    const room = uniqueRoom("pgload");
    cluster.postgres.crash();
    let down = true;
    onTestFinished(() => void (down && cluster.postgres.start()));
    const a = docPeer(cluster, room, [inst.url]);
    a.map.set("offline", 1);
    // Hocuspocus answers a failed load with the message a refused token gets; its reason differs.
    const [{ reason }] = await nextEvent<[{ reason: string }]>(a.conn.provider, "authenticationFailed");
    expect(reason).toMatch(/^unavailable/);
    expect(a.conn.error).toBeUndefined(); // not a HocuspocusAuthError: the app shows no sign-in
    cluster.postgres.start();
    down = false;
    await a.conn.whenSynced;
    expect(a.conn.error).toBeUndefined();
    await untilStored(cluster, room, (s) => s.offline === 1);
    expect(inst.child.process.exitCode).toBeNull();
  }, 30_000);
});

describe("two instances storing one room: merged, never overwritten", () => {
  it("a store that meets another instance's Redis store lock is not dropped: the change reaches Postgres", async () => {
    const cluster = env.cluster();
    const room = uniqueRoom("lock");
    const a = await storedPeer(cluster, room, [cluster.urls[1]!]);
    // The key @hocuspocus/extension-redis locks a store with, as another instance storing the room
    // (or SIGKILLed mid-store) leaves it for its lockTimeout, 1 s.
    const lock = `shared-fetch:${room}:lock`;
    const set = spawnSync("/usr/bin/redis-cli", ["-p", String(cluster.redis.port), "SET", lock, "other-instance", "PX", "1000", "NX"], {
      encoding: "utf8",
    });
    expect(set.stdout.trim()).toBe("OK");
    a.map.set("k", "while-locked");
    await untilStored(cluster, room, (s) => s.k === "while-locked");
  });

  it("both instances store the room while its row is busy: each one's change survives the other's store", async () => {
    const cluster = env.cluster();
    const { room, a, b } = await peersOnBothInstances(cluster, "busyrow");
    a.map.set("first", 1);
    await untilStored(cluster, room, (s) => s.first === 1);
    const release = await holdRow(cluster, room);
    a.map.set("fromA", 1);
    await lockWaiters(cluster, 1); // instance 0's store waits on the row with the state it encoded then
    b.map.set("fromB", 1);
    await until(a.doc, "update", () => a.map.get("fromB") === 1);
    await lockWaiters(cluster, 2); // instance 1's store of the later change waits too: not dropped
    await release();
    await untilStored(cluster, room, (s) => s.fromA === 1 && s.fromB === 1);
    expect(await storedMap(cluster, room)).toEqual({ first: 1, fromA: 1, fromB: 1 });
  });
});

describe("SIGTERM stores what is pending, or says what it could not store", () => {
  it("SIGTERM within the store debounce: the change is stored before the instance exits 0", async () => {
    const cluster = env.cluster();
    const inst = await extraInstance(cluster, "sigterm");
    const room = uniqueRoom("sigterm");
    const a = docPeer(cluster, room, [inst.url]);
    await a.conn.whenSynced;
    a.map.set("k", "v");
    await untilAcked(a);
    inst.child.process.kill("SIGTERM");
    expect(await inst.child.exited).toBe(0);
    expect(await storedMap(cluster, room)).toEqual({ k: "v" });
  });

  it("SIGTERM while the room's row is busy (under SHUTDOWN_TIMEOUT_MS): the instance waits, stores, exits 0", async () => {
    const cluster = env.cluster();
    const inst = await extraInstance(cluster, "sigterm-busy");
    const room = uniqueRoom("sigbusy");
    const a = await storedPeer(cluster, room, [inst.url]);
    const release = await holdRow(cluster, room);
    a.map.set("k", "v");
    await untilAcked(a);
    a.stop(); // only the instance holds the change now
    inst.child.process.kill("SIGTERM");
    setTimeout(() => void release(), 4000); // longer than the 3 s this instance once waited, then exited 0 without it
    expect(await inst.child.exited).toBe(0);
    expect(await storedMap(cluster, room)).toEqual({ first: 1, k: "v" });
  });

  it("a store still pending at SHUTDOWN_TIMEOUT_MS: the instance exits 1 and names the room", async () => {
    const cluster = env.cluster();
    const inst = await extraInstance(cluster, "sigterm-cap", { SHUTDOWN_TIMEOUT_MS: "500" });
    const room = uniqueRoom("sigcap");
    const a = await storedPeer(cluster, room, [inst.url]);
    await holdRow(cluster, room); // until the test ends
    a.map.set("k", "v");
    await untilAcked(a);
    a.stop();
    inst.child.process.kill("SIGTERM");
    expect(await inst.child.exited).toBe(1);
    expect(inst.child.output()).toMatch(new RegExp(`SHUTDOWN_TIMEOUT_MS=500.*${room}`));
  });
});
