import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel, describeEntry, Timeline, type TimelineEntry } from "../../devtools/index.ts";
import { internalsOf, ROOT, TABLES } from "../../src/internals.ts";
import { background, cluster, tick, until, URL_A, useFakeClock, twoTabs } from "../harness/replicas.ts";

const LEASE = 5000;
const req = { url: URL_A };
const LABEL = "GET https://api.example.test/items";
/** The story without times and sequence numbers, oldest first: what every panel should agree on. */
const story = (entries: readonly TimelineEntry[]) => [...entries].reverse().map(({ seq: _s, at: _a, ...rest }) => rest);

describe("devtools timeline: the doc's transitions as each panel saw them (no extra records)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a silent claimant: every panel tells claimed by A, heartbeat lapsed, B took over from A (lease silence), result by B", async () => {
    const c = cluster(3);
    const [a, b, observer] = c.stores;
    const models = [b!, observer!].map((s) => createDevtoolsModel(s, { minNotifyIntervalMs: 0 }));
    background(a!.ensure(req));
    await tick(100);
    const waiting = b!.ensure(req);
    c.crash(a!);
    await tick(LEASE + 100);
    c.host.calls[1]!.respond(200, { n: 2 });
    await until(waiting);
    await tick();
    const key = a!.keyOf(req);
    const expected = [
      { type: "claimed", key, label: LABEL, replicaId: a!.replicaId, rev: 1 },
      { type: "stale", key, label: LABEL, replicaId: a!.replicaId, rev: 1, reason: "lease-silence", silentMs: expect.any(Number) },
      {
        type: "takeover",
        key,
        label: LABEL,
        from: a!.replicaId,
        to: b!.replicaId,
        rev: 1,
        reason: "lease-silence",
        afterMs: expect.any(Number),
      },
      { type: "result", key, label: LABEL, by: b!.replicaId, rev: 1, bytes: 7 },
    ];
    // B's panel also tells B's own join of A's request (its store's event, not a doc transition).
    const joined = { type: "joined", key, label: LABEL, replicaId: b!.replicaId, to: a!.replicaId, rev: 1 };
    expect(story(models[0]!.timeline.entries())).toEqual([expected[0], joined, ...expected.slice(1)]);
    expect(story(models[1]!.timeline.entries())).toEqual(expected);
    const takeover = models[1]!.timeline.entries().find((e) => e.type === "takeover")!;
    expect(takeover.type === "takeover" && takeover.afterMs).toBeGreaterThanOrEqual(LEASE);
    const names = (id: string) => (id === a!.replicaId ? "A" : id === b!.replicaId ? "B" : "C");
    expect(describeEntry(takeover, names)).toMatch(new RegExp(`^B took over ${LABEL} from A after \\d+\\.\\d s: lease silence$`));
    models.forEach((m) => m.destroy());
  });

  it("a crashed tab of the same browser: lock released, then the takeover, on the survivor's panel", async () => {
    const { locks, c, a, b } = await twoTabs({ settleMs: 0 });
    background(a.ensure(req));
    await tick(10);
    const model = createDevtoolsModel(b, { minNotifyIntervalMs: 0 });
    b.subscribe(req, () => {});
    c.crash(a);
    locks.crash("a");
    await tick(1);
    const types = story(model.timeline.entries()).map((e) => [e.type, "reason" in e ? e.reason : undefined]);
    expect(types).toEqual([
      ["claimed", undefined],
      ["departed", "lock-released"],
      ["stale", "lock-released"],
      ["takeover", "lock-released"],
    ]);
    expect(model.timeline.entries()[0]).toMatchObject({ type: "takeover", from: a.replicaId, to: b.replicaId });
    // At once on the lock's release: no "after N ms", which was A's silence, read as a wait.
    const names = (id: string) => (id === a.replicaId ? "A" : "B");
    expect(describeEntry(model.timeline.entries()[0]!, names)).toBe(`B took over ${LABEL} from A: lock released`);
    expect(model.timeline.entries({ replicaId: a.replicaId })).toHaveLength(4);
    expect(model.timeline.entries({ key: "other" })).toEqual([]);
    model.destroy();
  });

  it("an error beside a result, a release with nothing recorded, a sweep and a malformed record", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    const first = background(a!.ensure(req));
    await tick(1);
    c.host.calls[0]!.respond(200, "ok");
    await until(first);
    const again = background(a!.refetch(req));
    await tick(1);
    c.host.calls[1]!.respond(503, "busy");
    await until(again);
    const aborted = new AbortController();
    background(a!.ensure({ url: `${URL_A}/left` }, { signal: aborted.signal }));
    await tick(1);
    aborted.abort();
    await tick(1);
    const key = a!.keyOf(req);
    internalsOf(a!).records.doc.transact(() => {
      internalsOf(a!).records.results.delete(key);
      internalsOf(a!).records.errors.delete(key);
    });
    const lane = new Y.Array<unknown>();
    lane.push([{ t: TABLES.claims, k: "bad", v: { replicaId: 5 }, s: 1 }]);
    c.docOf(a!).getArray<unknown>(ROOT).push([lane]);
    await tick();
    const entries = story(model.timeline.entries());
    expect(entries.map((e) => e.type)).toEqual(["claimed", "result", "claimed", "error", "claimed", "released", "swept", "malformed"]);
    expect(entries[3]).toMatchObject({ type: "error", by: a!.replicaId, rev: 2, status: 503, besideResult: 1 });
    const error = model.timeline.entries().find((e) => e.type === "error")!;
    expect(describeEntry(error)).toMatch(/HTTP 503.*the result of rev 1 is kept beside it$/);
    expect(entries[7]).toMatchObject({
      type: "malformed",
      table: "claims",
      key: "bad",
      reason: "claim.replicaId is not a non-empty string",
    });
    model.destroy();
  });

  it("a claim replaced while the store judged it live is told as replaced, with no reason the store did not give", () => {
    const claim = (replicaId: string, nonce: string, silentMs: number) => ({
      replicaId,
      nonce,
      rev: 1,
      leaseMs: LEASE,
      abandoned: false,
      holder: "other replica" as const,
      mine: false,
      finished: false,
      stale: false,
      staleAt: 10 + LEASE,
      silentMs,
      exact: false,
    });
    const at = (n: number, replicaId: string, nonce: string, beat?: number) => ({
      replicaId: "me",
      at: n,
      keys: [{ key: "k", kind: "fetch" as const, recorded: 0, claim: claim(replicaId, nonce, n - 10) }],
      replicas: beat === undefined ? [] : [{ replicaId: "A", me: false, claims: 1, heartbeat: { n: beat, seenAt: 10 } }],
      malformed: [],
    });
    const told = (...inspections: ReturnType<typeof at>[]) => {
      const timeline = new Timeline();
      timeline.observe({ replicaId: "me", at: 0, keys: [], replicas: [], malformed: [] });
      for (const i of inspections) timeline.observe(i);
      return timeline.entries();
    };
    // Two claims at once, or B judged A gone before this store did: this store cannot say which.
    for (const [claimedAt, replacedAt] of [
      [10, 30],
      [10, 10 + LEASE * 0.6],
      [10 + LEASE * 0.6, 10 + LEASE - 1],
    ]) {
      const entries = told(at(10, "A", "n1"), at(claimedAt!, "A", "n1"), at(replacedAt!, "B", "n2"));
      expect(story(entries).map((e) => e.type)).toEqual(["claimed", "replaced"]);
      expect(entries[0]).toMatchObject({ type: "replaced", from: "A", to: "B", rev: 1 });
      expect(describeEntry(entries[0]!)).toBe(
        "B's claim replaced A's on key k… (rev 1) while this store still judged it live: the reason is not known here (both claimed at once, or B judged it stale first)",
      );
    }
    // The store's own deadline for A's claim had passed: its verdict is lease silence.
    const late = told(at(10, "A", "n1", 1), at(10 + LEASE, "B", "n2", 1));
    expect(story(late).map((e) => [e.type, "reason" in e ? e.reason : undefined])).toEqual([
      ["claimed", undefined],
      ["stale", "lease-silence"],
      ["takeover", "lease-silence"],
    ]);
    // …unless a heartbeat of A came since: the deadline the store had set no longer stands.
    const beaten = told(at(10, "A", "n1", 1), at(10 + LEASE, "B", "n2", 2));
    expect(story(beaten).map((e) => e.type)).toEqual(["claimed", "replaced"]);
  });

  it("a claim taken over and finished between two inspections (a new SharedWorker watched only after its hello): the result's writer is told as the taker", () => {
    const held = {
      replicaId: "W0",
      nonce: "n0",
      rev: 1,
      leaseMs: LEASE,
      abandoned: false,
      holder: "same browser" as const,
      mine: false,
      finished: false,
      stale: false,
      staleAt: Infinity,
      silentMs: 0,
      exact: true,
    };
    const timeline = new Timeline();
    timeline.observe({ replicaId: "me", at: 0, keys: [], replicas: [], malformed: [] });
    timeline.observe({
      replicaId: "me",
      at: 10,
      keys: [{ key: "k", kind: "fetch", recorded: 0, claim: held }],
      replicas: [],
      malformed: [],
    });
    // The next inspection comes from the next worker, which already took the claim over and wrote.
    timeline.observe({
      replicaId: "me",
      at: 90,
      keys: [{ key: "k", kind: "fetch", recorded: 1, result: { rev: 1, data: { n: 1 }, by: "W1" } }],
      replicas: [{ replicaId: "W0", me: false, claims: 0, departed: "lock-released" }],
      malformed: [],
    });
    expect(story(timeline.entries()).map((e) => [e.type, "reason" in e ? e.reason : undefined])).toEqual([
      ["claimed", undefined],
      ["departed", "lock-released"],
      ["stale", "lock-released"],
      ["takeover", "lock-released"],
      ["result", undefined],
    ]);
    expect(timeline.entries()[1]).toMatchObject({ type: "takeover", from: "W0", to: "W1", rev: 1, afterMs: 80 });
  });

  it("a panel whose store first saw A's claim later than the taker did tells the takeover without a reason its store never gave", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const early = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    background(a!.ensure(req));
    await tick(100);
    const waiting = b!.ensure(req);
    c.crash(a!);
    await tick(LEASE * 0.4);
    // Its store starts A's lease on its own clock now (invariant 3): B will take over first.
    const observer = c.join();
    const late = createDevtoolsModel(observer, { minNotifyIntervalMs: 0 });
    await tick(LEASE * 0.6 + 100);
    c.host.calls[1]!.respond(200, { n: 2 });
    await until(waiting);
    await tick();
    const names = (id: string) => (id === a!.replicaId ? "A" : id === b!.replicaId ? "B" : "C");
    const told = (m: typeof late) => [...m.timeline.entries()].reverse().map((e) => describeEntry(e, names));
    expect(told(late)).toEqual([
      `A held ${LABEL} (rev 1) when this panel started`,
      `B's claim replaced A's on ${LABEL} (rev 1) while this store still judged it live: the reason is not known here (both claimed at once, or B judged it stale first)`,
      `B wrote the result of ${LABEL} (rev 1, 7 B)`,
    ]);
    expect(told(early)).toEqual([
      `A claimed ${LABEL} (rev 1)`,
      `B joined A's request for ${LABEL} (rev 1): sent nothing`,
      expect.stringMatching(/^A's heartbeat lapsed on .*: silent for \d+\.\d s$/),
      expect.stringMatching(new RegExp(`^B took over ${LABEL} from A after \\d+\\.\\d s: lease silence$`)),
      `B wrote the result of ${LABEL} (rev 1, 7 B)`,
    ]);
    [early, late].forEach((m) => m.destroy());
  });

  it("keeps at most `max` entries, newest first, and a bad max is refused", () => {
    const timeline = new Timeline({ max: 2 });
    timeline.observe({ replicaId: "me", at: 0, keys: [], replicas: [], malformed: [] });
    for (let i = 1; i <= 3; i++)
      timeline.observe({
        replicaId: "me",
        at: i,
        keys: [{ key: "k", kind: "fetch", recorded: i, result: { rev: i, data: i } }],
        replicas: [],
        malformed: [],
      });
    expect(timeline.entries().map((e) => e.type === "result" && e.rev)).toEqual([3, 2]);
    expect(() => new Timeline({ max: 0 })).toThrow(RangeError);
  });
});
