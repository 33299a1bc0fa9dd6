/**
 * README, Scaling out: each room is stored in Postgres, "merged, never overwritten", 250 ms after
 * the last change; a crash loses at most that much from the instance, "the peers still hold it"
 * (instance.ts). Pinned here: a change that already reached another instance through Redis is
 * stored by that instance too, so the crash of the instance it came in through loses nothing.
 */
import { describe, expect, it } from "vitest";
import { killHard } from "../../server/cluster/child.ts";
import { until } from "../sync/wait.ts";
import { docPeer, extraInstance, peersOnBothInstances, storedMap, uniqueRoom, untilStored, useCluster } from "./harness.ts";

const env = useCluster();

describe("changes relayed through Redis are stored by every instance that holds the room", () => {
  it("the writer's instance is SIGKILLed before it stored: the change still reaches Postgres, from the other instance", async () => {
    const cluster = env.cluster();
    // The writer's instance waits a minute before it stores: its SIGKILL surely comes first.
    const slow = await extraInstance(cluster, "slow-store", { STORE_DEBOUNCE_MS: "60000" });
    const room = uniqueRoom("crashstore");
    const writer = docPeer(cluster, room, [slow.url]);
    const reader = docPeer(cluster, room, [cluster.urls[1]!]);
    await Promise.all([writer.conn.whenSynced, reader.conn.whenSynced]);
    writer.map.set("k", "v");
    await until(reader.doc, "update", () => reader.map.get("k") === "v"); // relayed to instance 1
    await killHard(slow.child);
    await untilStored(cluster, room, (s) => s.k === "v");
    expect(await storedMap(cluster, room)).toEqual({ k: "v" });
  });

  it("concurrent writes through both instances (no fault) all reach Postgres", async () => {
    const cluster = env.cluster();
    const { room, a, b } = await peersOnBothInstances(cluster, "concurrent");
    for (let i = 0; i < 60; i++) {
      a.map.set(`a${i}`, i);
      b.map.set(`b${i}`, i);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30)); // interleave the two streams
    }
    await untilStored(cluster, room, (s) => Object.keys(s).length === 120);
  });
});
