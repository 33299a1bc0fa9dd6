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
    for (const model of models) expect(story(model.timeline.entries())).toEqual(expected);
    const takeover = models[1]!.timeline.entries().find((e) => e.type === "takeover")!;
    expect(takeover.type === "takeover" && takeover.afterMs).toBeGreaterThanOrEqual(LEASE);
    const names = (id: string) => (id === a!.replicaId ? "A" : id === b!.replicaId ? "B" : "C");
    expect(describeEntry(takeover, names)).toMatch(new RegExp(`^B took over ${LABEL} from A after \\d+ ms: lease silence$`));
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

  it("two replicas claiming at once: the loser is told as yielded, not as a takeover", () => {
    const timeline = new Timeline();
    const claim = (replicaId: string, nonce: string) => ({
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
      silentMs: 0,
      exact: false,
    });
    const at = (n: number, replicaId: string, nonce: string) => ({
      replicaId: "me",
      at: n,
      keys: [{ key: "k", kind: "fetch" as const, recorded: 0, claim: claim(replicaId, nonce) }],
      replicas: [],
      malformed: [],
    });
    timeline.observe({ replicaId: "me", at: 0, keys: [], replicas: [], malformed: [] });
    timeline.observe(at(10, "A", "n1"));
    timeline.observe(at(30, "B", "n2"));
    expect(story(timeline.entries()).map((e) => e.type)).toEqual(["claimed", "yielded"]);
    expect(describeEntry(timeline.entries()[0]!)).toBe("A yielded key k… (rev 1) to B: both claimed at once");
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
