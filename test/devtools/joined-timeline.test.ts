/**
 * One request for K replicas, as the panel of one that sent nothing tells it: B asks for a key
 * while A's claim on it is in flight and joins A's request instead of claiming. B's store says so
 * (its `joined` event, naming A), and B's Timeline and Events tab tell it. Only a live foreign
 * claim is joined: an ask answered by a recorded result, a replica's second ask of its own claim,
 * and a claim of ours that yielded to a rival (`yielded` tells that) are no join.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry, replicasOf } from "../../devtools/index.ts";
import { describeEvent } from "../../devtools/format.ts";
import type { StoreEvent } from "../../src/index.ts";
import { background, cluster, tick, twoTabs, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const R = { url: URL_A };
const LABEL = `GET ${URL_A}`;

function eventsOf(store: { onEvent(l: (e: StoreEvent) => void): () => void }): StoreEvent[] {
  const events: StoreEvent[] = [];
  store.onEvent((e) => events.push(e));
  return events;
}

const joins = (events: StoreEvent[]) => events.filter((e) => e.type === "joined");

describe("an ask that joins another replica's request in flight (the `joined` event)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("B asks while A's request is in flight: B's store tells one join naming A, and B's panel tells it", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const [aEvents, bEvents] = [eventsOf(a!), eventsOf(b!)];
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    const first = background(a!.ensure(R));
    await tick(10);
    const joined = background(b!.ensure(R));
    await tick(10);
    // A second ask of B on the same revision joins nothing new; a refetch joins the claim in flight too.
    const again = background(b!.refetch(R));
    await tick(10);
    expect(c.host.calls).toHaveLength(1);
    const key = b!.keyOf(R);
    expect(joins(bEvents)).toEqual([{ type: "joined", kind: "fetch", key, rev: 1, to: a!.replicaId }]);
    expect(bEvents.map((e) => e.type)).not.toContain("claimed");
    expect(joins(aEvents)).toEqual([]);

    const name = (id: string) => (id === a!.replicaId ? "A" : id === b!.replicaId ? "B" : "?");
    const timeline = model.getSnapshot().timeline;
    const entry = timeline.find((e) => e.type === "joined")!;
    expect(entry).toMatchObject({ type: "joined", key, label: LABEL, replicaId: b!.replicaId, to: a!.replicaId, rev: 1 });
    expect(describeEntry(entry, name)).toBe(`B joined A's request for ${LABEL} (rev 1): sent nothing`);
    // Told after the claim it joined, newest first.
    expect(
      timeline
        .map((e) => describeEntry(e, name))
        .reverse()
        .slice(0, 2),
    ).toEqual([`A claimed ${LABEL} (rev 1)`, `B joined A's request for ${LABEL} (rev 1): sent nothing`]);
    // Filterable by key and by either replica.
    expect(replicasOf(entry)).toEqual([b!.replicaId, a!.replicaId]);
    for (const replicaId of [a!.replicaId, b!.replicaId])
      expect(model.timeline.entries({ replicaId, key, types: ["joined"] })).toEqual([entry]);
    // The Events tab's line.
    const logged = model.getSnapshot().events.find((e) => e.event.type === "joined")!;
    expect(describeEvent(logged.event)).toBe(`rev 1 of ${a!.replicaId.slice(0, 11)}…: sent nothing`);

    c.host.calls[0]!.respond(200, { n: 1 });
    expect((await until(joined)).data).toEqual({ n: 1 });
    await until(Promise.all([first, again]));
    expect(joins(bEvents)).toHaveLength(1);
    model.destroy();
  });

  it("an ask answered by a recorded result joins nothing: no claim is in flight", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const bEvents = eventsOf(b!);
    const first = background(a!.ensure(R));
    await tick(10);
    c.host.calls[0]!.respond(200, { n: 1 });
    await until(first);
    await tick(10);
    expect((await until(b!.ensure(R))).data).toEqual({ n: 1 });
    expect(bEvents).toEqual([]);
  });

  it("a replica's second ask of its own claim joins nothing", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a] = c.stores;
    const aEvents = eventsOf(a!);
    const model = createDevtoolsModel(a!, { minNotifyIntervalMs: 0 });
    const first = background(a!.ensure(R));
    await tick(10);
    const second = background(a!.ensure(R));
    const third = background(a!.refetch(R));
    await tick(10);
    c.host.calls[0]!.respond(200, { n: 1 });
    await until(Promise.all([first, second, third]));
    expect(c.host.calls).toHaveLength(1);
    expect(joins(aEvents)).toEqual([]);
    expect(model.getSnapshot().timeline.filter((e) => e.type === "joined")).toEqual([]);
    model.destroy();
  });

  it("a refetch past the claim in flight (skipInFlight) waits for it but joins nothing: it sends its own next", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const bEvents = eventsOf(b!);
    const first = background(a!.ensure(R));
    await tick(10);
    const past = background(b!.refetch(R, { skipInFlight: true }));
    await tick(10);
    c.host.calls[0]!.respond(200, { n: 1 });
    await tick(10);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, { n: 2 });
    expect((await until(past)).data).toEqual({ n: 2 });
    await until(first);
    expect(joins(bEvents)).toEqual([]);
    expect(bEvents.map((e) => e.type)).toContain("dispatched");
  });

  it("two tabs ask at once: the one still waiting for the key's lock wrote no claim, so its step back is a join", async () => {
    const { c, a, b } = await twoTabs({ settleMs: 0 });
    const bEvents = eventsOf(b);
    const model = createDevtoolsModel(b, { minNotifyIntervalMs: 0 });
    const both = background(Promise.all([a.ensure(R), b.ensure(R)]));
    await tick(50);
    expect(c.host.calls).toHaveLength(1);
    expect(bEvents.map((e) => e.type)).not.toContain("claimed");
    expect(joins(bEvents)).toEqual([{ type: "joined", kind: "fetch", key: b.keyOf(R), rev: 1, to: a.replicaId }]);
    const name = (id: string) => (id === a.replicaId ? "A" : "B");
    const told = model.getSnapshot().timeline.filter((e) => e.type === "joined");
    expect(told.map((e) => describeEntry(e, name))).toEqual([`B joined A's request for ${LABEL} (rev 1): sent nothing`]);
    c.host.calls[0]!.respond(200, { n: 1 });
    await until(both);
    expect(joins(bEvents)).toHaveLength(1);
    model.destroy();
  });

  it("a joiner whose claimant went silent takes it over: its join is followed by its own takeover claim, never a second join", async () => {
    const c = cluster(2, { settleMs: 0, leaseMs: 1000 });
    const [a, b] = c.stores;
    const bEvents = eventsOf(b!);
    background(a!.ensure(R));
    await tick(10);
    const joined = background(b!.ensure(R));
    await tick(10);
    c.crash(a!);
    await tick(1500);
    expect(bEvents.map((e) => e.type)).toEqual(["joined", "claimed", "dispatched"]);
    expect(bEvents[1]).toMatchObject({ rev: 1, takeoverOf: a!.replicaId });
    c.host.calls[1]!.respond(200, { n: 1 });
    await until(joined);
    expect(joins(bEvents)).toHaveLength(1);
  });

  it("a third replica takes over the claim B joined: B tells one join, and its Timeline the takeover after it", async () => {
    const c = cluster(3, { settleMs: 0, leaseMs: 1000 });
    const [a, b, third] = c.stores;
    const bEvents = eventsOf(b!);
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    background(a!.ensure(R));
    await tick(10);
    const asks = background(Promise.all([b!.ensure(R), third!.ensure(R)]));
    await tick(10);
    // Cut off from A's heartbeats, C judges A's claim stale first and takes it over (same revision).
    c.net.isolate(c.docOf(third!));
    await tick(1100);
    c.net.heal(c.docOf(third!));
    c.crash(a!);
    await tick(1500);
    expect(b!.snapshot(R).claim?.replicaId).toBe(third!.replicaId);
    expect(bEvents).toEqual([{ type: "joined", kind: "fetch", key: b!.keyOf(R), rev: 1, to: a!.replicaId }]);
    const name = (id: string) => (id === a!.replicaId ? "A" : id === b!.replicaId ? "B" : "C");
    const told = model
      .getSnapshot()
      .timeline.map((e) => describeEntry(e, name))
      .reverse();
    expect(told.filter((line) => line.includes("joined"))).toEqual([`B joined A's request for ${LABEL} (rev 1): sent nothing`]);
    expect(told.findIndex((line) => line.startsWith("C's claim replaced A's"))).toBeGreaterThan(
      told.findIndex((line) => line.includes("joined")),
    );
    for (const call of c.host.calls.slice(1)) call.respond(200, { n: 1 });
    await until(asks);
    expect(c.host.calls).toHaveLength(2);
    model.destroy();
  });

  it("a claim of ours that yields to a rival's is told as the yield, not as a join", async () => {
    // Both claim before either hears of the other; the settle window leaves one.
    const c = cluster(2, { settleMs: 100 });
    c.net.delayMs = 5;
    const [a, b] = c.stores;
    const [aEvents, bEvents] = [eventsOf(a!), eventsOf(b!)];
    const both = background(Promise.all([a!.ensure(R), b!.ensure(R)]));
    await tick(200);
    expect(c.host.calls).toHaveLength(1);
    const all = [...aEvents, ...bEvents];
    expect(all.filter((e) => e.type === "yielded")).toHaveLength(1);
    expect(joins(all)).toEqual([]);
    c.host.calls[0]!.respond(200, { n: 1 });
    await until(both);
  });
});
