import { describe, expect, it } from "vitest";
import { replicasOf, type TimelineEntry } from "../../devtools/index.ts";

const at = { seq: 1, at: 0, key: "k", label: "GET https://api.example.test/items" };

/** What the Timeline's replica filter and its choices are made of: every replica an entry names, and nothing else. */
describe("replicasOf", () => {
  it.each<[TimelineEntry, string[]]>([
    [{ ...at, type: "claimed", replicaId: "a", rev: 1 }, ["a"]],
    [{ ...at, type: "stale", replicaId: "a", rev: 1, reason: "lease-silence", silentMs: 9 }, ["a"]],
    [{ ...at, type: "takeover", from: "a", to: "b", rev: 1, reason: "lock-released", afterMs: 3 }, ["a", "b"]],
    [{ ...at, type: "replaced", from: "a", to: "b", rev: 1 }, ["a", "b"]],
    [{ ...at, type: "result", rev: 1, bytes: 2, by: "b" }, ["b"]],
    [{ ...at, type: "result", rev: 1, bytes: 2 }, []],
    [{ ...at, type: "error", rev: 1, message: "HTTP 503", by: "c" }, ["c"]],
    [{ ...at, type: "released", replicaId: "a", rev: 1, aborted: "no-waiters" }, ["a"]],
    // Its `to` is the refetch's revision, not a replica.
    [{ ...at, type: "refetched", replicaId: "a", rev: 1, to: 2 }, ["a"]],
    [{ ...at, type: "revived", replicaId: "a", rev: 1 }, ["a"]],
    // The inspected store first, then the replica whose request it joined.
    [{ ...at, type: "joined", replicaId: "b", to: "a", rev: 1 }, ["b", "a"]],
    [{ ...at, type: "invalidated", rev: 1 }, []],
    [{ ...at, type: "swept" }, []],
    [{ seq: 1, at: 0, type: "departed", replicaId: "a", reason: "presence-left" }, ["a"]],
    [{ seq: 1, at: 0, type: "unheard", replicaId: "a", others: ["b", "c"] }, ["a", "b", "c"]],
    [{ seq: 1, at: 0, type: "unheard", replicaId: "a", by: "d" }, ["a", "d"]],
    [{ seq: 1, at: 0, type: "malformed", table: "results", reason: "rev is not an integer", key: "k" }, []],
    [{ seq: 1, at: 0, type: "inspecting", replicaId: "new", from: "old", destroyed: true }, ["new", "old"]],
  ])("%j names %j", (entry, ids) => {
    expect(replicasOf(entry)).toEqual(ids);
  });
});
