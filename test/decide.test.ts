import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, isTerminal, MAX_REV, type Action, type KeyView } from "../src/core/decide.ts";

const base: KeyView = { lifecycle: "ready", recorded: 0, resultRev: 0, settled: 0, waiters: [], listeners: 0 };
/** A recorded revision is a result unless the row says otherwise (resultRev). */
const view = (over: Partial<KeyView>): KeyView => ({ ...base, resultRev: over.recorded ?? 0, ...over });
const foreign = (rev: number, stale: boolean, staleAt = 5000) => ({ replicaId: "B", nonce: "nb", rev, mine: false, stale, staleAt });
const mineClaim = (rev: number, nonce = "na") => ({ replicaId: "A", nonce, rev, mine: true, stale: false, staleAt: Infinity });
const attempt = (rev: number, phase: "locking" | "settling" | "settled" | "running", forListeners = false) => ({
  rev,
  nonce: "na",
  phase,
  forListeners,
});

/** The decision table: each row is one combination of the view that matters, its action and why. */
const table: [string, KeyView, Action][] = [
  ["nothing runs after destroy", view({ lifecycle: "destroyed", waiters: [1] }), { type: "none" }],
  ["a suspended page decides nothing (pagehide/freeze)", view({ lifecycle: "suspended", waiters: [1] }), { type: "none" }],
  ["ensure: a recorded outcome resolves the waiter (contract)", view({ recorded: 1, waiters: [1] }), { type: "resolve" }],
  [
    "refetch: an older outcome does not resolve it",
    view({ recorded: 1, waiters: [2], claim: foreign(2, false) }),
    { type: "wait", until: 5000 },
  ],
  ["a waiter and nothing claimed: claim the next revision", view({ waiters: [1] }), { type: "claim", rev: 1 }],
  ["refetch: claim recorded + 1", view({ recorded: 3, waiters: [4] }), { type: "claim", rev: 4 }],
  [
    "invariant 3/9: a live foreign claim is waited on until it would go stale",
    view({ waiters: [1], claim: foreign(1, false, 7000) }),
    { type: "wait", until: 7000 },
  ],
  [
    "invariant 4/12: a stale foreign claim is taken over at its revision",
    view({ waiters: [1], claim: foreign(1, true) }),
    { type: "claim", rev: 1, from: "B" },
  ],
  [
    "invariant 4: a stale foreign claim that every waiter here wants past is rewritten into the newer revision (not resent)",
    view({ waiters: [2], claim: foreign(1, true) }),
    { type: "claim", rev: 2, from: "B" },
  ],
  [
    "invariant 11: our attempt that every waiter wants past (a refetch after TanStack cancelled its fetch) is aborted",
    view({ waiters: [2], claim: mineClaim(1), attempt: attempt(1, "running") }),
    { type: "abort", reason: "refetched" },
  ],
  [
    "cancelRefetch: one waiter here wants past our attempt while others joined it (two tabs of a worker, two hooks): it is aborted; the newer request answers them all",
    view({ waiters: [1, 2, 1], claim: mineClaim(1), attempt: attempt(1, "running") }),
    { type: "abort", reason: "refetched" },
  ],
  [
    "a waiter for the revision our result is recorded at (older data above ours: freshness.ts, outran) joins it, beside an older one",
    view({ waiters: [1, 5], claim: mineClaim(1), attempt: { ...attempt(1, "running"), over: 5 } }),
    { type: "none" },
  ],
  [
    "past that revision (a skipInFlight refetch), it is aborted",
    view({ waiters: [1, 6], claim: mineClaim(1), attempt: { ...attempt(1, "running"), over: 5 } }),
    { type: "abort", reason: "refetched" },
  ],
  [
    "our own claim standing without an attempt, a waiter wants past it: claim the newer revision",
    view({ waiters: [2], claim: mineClaim(1) }),
    { type: "claim", rev: 2 },
  ],
  [
    "invariant 8: a listener finishes abandoned work",
    view({ listeners: 1, claim: foreign(2, true), recorded: 1 }),
    { type: "claim", rev: 2, from: "B" },
  ],
  ["showing a key never starts new work", view({ listeners: 1 }), { type: "none" }],
  [
    "invariant 9: showing a key waits on a live claim too (its re-check is armed in a quiet page)",
    view({ listeners: 1, claim: foreign(1, false, 9000) }),
    { type: "wait", until: 9000 },
  ],
  [
    "a leftover claim at the recorded revision is finished work",
    view({ recorded: 2, waiters: [3], claim: foreign(2, false) }),
    { type: "claim", rev: 3 },
  ],
  [
    "invariants 4, 8: showing a key waits on a live claim at the revision of a duplicate's error (its result replaces it)",
    view({ listeners: 1, recorded: 1, resultRev: 0, claim: foreign(1, false, 9000) }),
    { type: "wait", until: 9000 },
  ],
  [
    "the same claim once stale is finished work: nothing to wait on",
    view({ listeners: 1, recorded: 1, resultRev: 0, claim: foreign(1, true) }),
    { type: "none" },
  ],
  ["a claim at a result's revision is finished work", view({ listeners: 1, recorded: 1, claim: foreign(1, false) }), { type: "none" }],
  [
    "invariant 8: our own claim left without an attempt (pagehide, then back) is finished",
    view({ listeners: 1, claim: mineClaim(1) }),
    { type: "claim", rev: 1 },
  ],
  ["nobody interested: forget the key", view({ claim: foreign(1, false) }), { type: "drop" }],
  [
    "invariant 2: our own attempt is never judged by the clock",
    view({ waiters: [1], claim: mineClaim(1), attempt: attempt(1, "running") }),
    { type: "none" },
  ],
  ["still settling: wait for the window", view({ waiters: [1], claim: mineClaim(1), attempt: attempt(1, "settling") }), { type: "none" }],
  ["settled and still ours: dispatch", view({ waiters: [1], claim: mineClaim(1), attempt: attempt(1, "settled") }), { type: "dispatch" }],
  [
    "invariant 4: settled with no claim standing at all (the contest's winner let it go): step back, never send unseen",
    view({ waiters: [1], attempt: attempt(1, "settled") }),
    { type: "yield", to: "" },
  ],
  [
    "a crashed replica (dev.crash: its claim never reaches the doc) settled with no claim: dispatched into its dead gate, not stepping back to claim again for ever",
    view({ waiters: [1], attempt: attempt(1, "settled"), crashed: true }),
    { type: "dispatch" },
  ],
  [
    "settled but another claim won the race: yield",
    view({ waiters: [1], claim: foreign(1, false), attempt: attempt(1, "settled") }),
    { type: "yield", to: "B" },
  ],
  [
    "settled, another claim at a lower revision: ours stands",
    view({ waiters: [2], recorded: 0, claim: foreign(1, false), attempt: attempt(2, "settled") }),
    { type: "dispatch" },
  ],
  [
    "invariant 6: someone recorded our revision first: our copy is moot",
    view({ recorded: 1, attempt: attempt(1, "running"), listeners: 1 }),
    { type: "abort", reason: "superseded" },
  ],
  [
    "invariant 7: a failing duplicate's error recorded first does not cost our healthy attempt",
    view({ recorded: 1, resultRev: 0, waiters: [], listeners: 1, claim: mineClaim(1), attempt: attempt(1, "running", true) }),
    { type: "none" },
  ],
  ["invariant 11: the last waiter left: abort", view({ attempt: attempt(1, "running") }), { type: "abort", reason: "no-waiters" }],
  [
    "invariant 8: work taken over for listeners lives while someone shows the key",
    view({ listeners: 1, claim: mineClaim(1), attempt: attempt(1, "running", true) }),
    { type: "none" },
  ],
  [
    "invariant 11: a waiter's own work is aborted when only listeners remain (contract)",
    view({ listeners: 1, attempt: attempt(1, "running", false) }),
    { type: "abort", reason: "no-waiters" },
  ],
  [
    "waiting for the key's Web Lock, another tab's live claim arrived: yield (exact, no window)",
    view({ waiters: [1], claim: foreign(1, false), attempt: attempt(1, "locking") }),
    { type: "yield", to: "B" },
  ],
  [
    "waiting for the key's Web Lock on a stale claim (takeover): keep waiting",
    view({ waiters: [1], claim: foreign(1, true), attempt: attempt(1, "locking") }),
    { type: "none" },
  ],
  [
    "ordered by the sync server: a rival's claim reached it first — yield at once, window or not",
    view({ waiters: [1], claim: mineClaim(1), attempt: { ...attempt(1, "settling"), order: "behind", ahead: "B" } }),
    { type: "yield", to: "B" },
  ],
  [
    "ordered first at the sync server: a later rival of our revision standing in the doc yields to us",
    view({ waiters: [1], claim: foreign(1, false), attempt: { ...attempt(1, "settled"), order: "first" } }),
    { type: "dispatch" },
  ],
  [
    "ordered first, but an eager rival already dispatched: yield (one request, not two)",
    view({ waiters: [1], claim: { ...foreign(1, false), eager: true }, attempt: { ...attempt(1, "settled"), order: "first" } }),
    { type: "yield", to: "B" },
  ],
  [
    "ordered first, a newer revision claimed meanwhile: it outranks ours",
    view({ waiters: [1], claim: foreign(2, false), attempt: { ...attempt(1, "settled"), order: "first" } }),
    { type: "yield", to: "B" },
  ],
  [
    "first at the server and running while a rival's claim stands: write ours again (invariant 8: pending names the true claimant)",
    view({ waiters: [1], claim: foreign(1, false), attempt: { ...attempt(1, "running"), order: "first" } }),
    { type: "reassert" },
  ],
  [
    "invariant 8: first and running with no claim left (a rival released it): write ours again",
    view({ waiters: [1], attempt: { ...attempt(1, "running"), order: "first" } }),
    { type: "reassert" },
  ],
  [
    "invariant 8: running, no server order, and no claim left (a takeover made across a partition, let go as it recorded an error ours replaces): write ours again",
    view({ recorded: 1, resultRev: 0, listeners: 1, attempt: attempt(1, "running", true) }),
    { type: "reassert" },
  ],
  [
    "invariant 8: running, and ours stands only while Yjs holds back the takeover that deleted it (a replica that hears us reads no claim): write ours again",
    view({ waiters: [1], claim: { ...mineClaim(1), held: true }, attempt: attempt(1, "running") }),
    { type: "reassert" },
  ],
  [
    "settled while ours stands only because Yjs holds back the takeover that deleted it: send, then write ours again (invariant 8: waiting on an insert that may never arrive, no clock may end, and replicas that hear us read no claim meanwhile)",
    view({ waiters: [1], claim: { ...mineClaim(1), held: true }, attempt: attempt(1, "settled") }),
    { type: "dispatch" },
  ],
  [
    "running beside a rival's claim that Yjs holds back its rewrite of: not ours to write again",
    view({ waiters: [1], claim: { ...foreign(1, false), held: true }, attempt: attempt(1, "running") }),
    { type: "none" },
  ],
  [
    "a crashed replica running with no claim left (its writes never land): nothing to write again",
    view({ waiters: [1], attempt: attempt(1, "running"), crashed: true }),
    { type: "none" },
  ],
  [
    "reasserted once, no claim left again: no second write",
    view({ waiters: [1], attempt: { ...attempt(1, "running"), reasserted: true } }),
    { type: "none" },
  ],
  [
    "reasserted once: no second write (two mistaken dispatches stop there)",
    view({ waiters: [1], claim: foreign(1, false), attempt: { ...attempt(1, "running"), order: "first", reasserted: true } }),
    { type: "none" },
  ],
  ["claims wait for this replica's lock (it names the browser)", view({ lifecycle: "starting", waiters: [1] }), { type: "await-ready" }],
  [
    "invariant 9: the lock is not needed to wait on a live claim (the re-check is armed while starting)",
    view({ lifecycle: "starting", waiters: [1], claim: foreign(1, false, 3000) }),
    { type: "wait", until: 3000 },
  ],
  ["a revision already settled here is never sent again", view({ waiters: [1], settled: 1 }), { type: "claim", rev: 2 }],
  [
    "no revision at the overflow bound is claimed: the waiters get what is there",
    view({ recorded: MAX_REV, waiters: [MAX_REV + 1] }),
    { type: "resolve", all: true },
  ],
];

describe("decide: the decision table", () => {
  it.each(table)("%s", (_why, v, expected) => {
    expect(decide(v)).toEqual(expected);
  });
});

/**
 * Every part of the view, the ones later features added included: the server's order of our claim
 * (`order`, `ahead`, `reasserted`), a result recorded above our revision (`over`), an eager rival,
 * a claim that stands only while Yjs holds back its rewrite (`held`),
 * another replica waiting on our attempt (`awaited`), and an error on top of an older result.
 */
const arbView: fc.Arbitrary<KeyView> = fc
  .record({
    lifecycle: fc.constantFrom("starting", "ready", "suspended", "destroyed"),
    recorded: fc.integer({ min: 0, max: 6 }),
    resultBelow: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    settled: fc.integer({ min: 0, max: 6 }),
    waiters: fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 3 }),
    listeners: fc.integer({ min: 0, max: 2 }),
    awaited: fc.option(fc.boolean(), { nil: undefined }),
    claim: fc.option(
      fc.record({
        replicaId: fc.constantFrom("A", "B"),
        nonce: fc.constantFrom("na", "nb"),
        rev: fc.integer({ min: 1, max: 7 }),
        mine: fc.boolean(),
        stale: fc.boolean(),
        staleAt: fc.integer({ min: 1, max: 10_000 }),
        eager: fc.option(fc.constant(true as const), { nil: undefined }),
        held: fc.option(fc.constant(true as const), { nil: undefined }),
      }),
      { nil: undefined },
    ),
    attempt: fc.option(
      fc.record({
        rev: fc.integer({ min: 1, max: 7 }),
        nonce: fc.constant("na"),
        phase: fc.constantFrom("locking", "settling", "settled", "running"),
        forListeners: fc.boolean(),
        order: fc.option(fc.constantFrom("first", "behind"), { nil: undefined }),
        ahead: fc.option(fc.constant("B"), { nil: undefined }),
        reasserted: fc.option(fc.boolean(), { nil: undefined }),
        over: fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined }),
      }),
      { nil: undefined },
    ),
  })
  .map((v) => {
    const out: KeyView = {
      lifecycle: v.lifecycle,
      recorded: v.recorded,
      // An error on top: the highest result is older than what is recorded.
      resultRev: v.resultBelow === undefined ? v.recorded : Math.min(v.resultBelow, v.recorded),
      settled: v.settled,
      waiters: v.waiters,
      listeners: v.listeners,
    };
    if (v.awaited !== undefined) out.awaited = v.awaited;
    if (v.claim) out.claim = defined(v.claim.mine ? { ...v.claim, stale: false, staleAt: Infinity } : v.claim);
    if (v.attempt) out.attempt = defined({ ...v.attempt, over: v.attempt.over && v.attempt.rev + v.attempt.over });
    return out;
  });

/** The object without its undefined fields (the view's optional parts are absent, not undefined). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, value]) => value !== undefined)) as T;
}

describe("decide: properties over every view", () => {
  it("invariant 2: with an attempt under way, the clock never decides (no wait, no claim)", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        if (!v.attempt) return;
        expect(["wait", "claim", "await-ready", "drop"]).not.toContain(decide(v).type);
      }),
      { numRuns: 2000 },
    );
  });

  it("invariant 3: a live foreign claim on unrecorded work is never taken over", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        const a = decide(v);
        if (a.type !== "claim" || !v.claim || v.claim.mine || v.claim.rev <= v.recorded) return;
        expect(v.claim.stale).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("invariant 12: a takeover keeps the stale claim's revision unless this replica already settled it or a waiter here wants a newer one", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        const a = decide(v);
        if (a.type !== "claim" || a.from === undefined) return;
        expect(a.rev).toBe(Math.max(v.claim!.rev, ...v.waiters));
        expect(a.rev).toBeGreaterThan(v.settled);
      }),
      { numRuns: 2000 },
    );
  });

  it("a claim is always above what is recorded and what this replica settled, and below the bound", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        const a = decide(v);
        if (a.type !== "claim") return;
        expect(a.rev).toBeGreaterThan(v.recorded);
        expect(a.rev).toBeGreaterThan(v.settled);
        expect(a.rev).toBeLessThanOrEqual(MAX_REV);
      }),
      { numRuns: 2000 },
    );
  });

  it("showing a key (no waiter) never starts new work: it only finishes a claimed revision", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        const a = decide(v);
        if (a.type !== "claim" || v.waiters.length > 0) return;
        expect(v.claim && v.claim.rev > v.recorded).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("ordered behind a rival at the sync server, our settling claim never sends its request", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        if (v.attempt?.order !== "behind" || v.attempt.phase === "running") return;
        expect(["dispatch", "reassert"]).not.toContain(decide(v).type);
      }),
      { numRuns: 2000 },
    );
  });

  it("invariant 11: work another replica waits on (awaited) is not aborted for want of waiters here", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        if (!v.awaited) return;
        expect(decide(v)).not.toEqual({ type: "abort", reason: "no-waiters" });
      }),
      { numRuns: 2000 },
    );
  });

  it("destroyed and suspended replicas decide nothing", () => {
    fc.assert(
      fc.property(arbView, (v) => {
        if (v.lifecycle === "destroyed" || v.lifecycle === "suspended") expect(decide(v)).toEqual({ type: "none" });
      }),
      { numRuns: 1000 },
    );
  });

  it("the loop ends: applying a non-terminal action's effect on the view leads to a terminal one within a few steps", () => {
    fc.assert(
      fc.property(arbView, (start) => {
        let v = start;
        for (let i = 0; i < 6; i++) {
          const a = decide(v);
          if (isTerminal(a)) return;
          v = applyToView(v, a);
        }
        throw new Error(`no terminal action from ${JSON.stringify(start)}`);
      }),
      { numRuns: 2000 },
    );
  });
});

/** What the engine's apply does to the view, in miniature. */
function applyToView(v: KeyView, a: Action): KeyView {
  switch (a.type) {
    case "resolve":
      return { ...v, waiters: a.all ? [] : v.waiters.filter((w) => w > v.recorded) };
    case "abort":
    case "yield": {
      const { attempt: _gone, ...rest } = v;
      return rest;
    }
    case "dispatch":
      return { ...v, attempt: { ...v.attempt!, phase: "running" } };
    case "reassert":
      return { ...v, claim: mineClaim(v.attempt!.rev, v.attempt!.nonce), attempt: { ...v.attempt!, reasserted: true } };
    case "claim":
      return {
        ...v,
        claim: mineClaim(a.rev),
        attempt: { rev: a.rev, nonce: "na", phase: "settling", forListeners: v.waiters.length === 0 },
      };
    default:
      return v;
  }
}
