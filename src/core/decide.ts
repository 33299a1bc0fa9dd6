import { MAX_REV } from "./records.ts";

/**
 * The claim engine's decisions as data: a pure function from what one replica knows about one key
 * (its view) to the next thing to do (an action). No Yjs, no timers, no clock: `now` and the
 * liveness verdict are inputs. The engine applies an action, rebuilds the view and asks again
 * until the action is one that waits (`wait`, `await-ready`, `none`, `drop`).
 */

/** The engine's lifecycle. Claims wait in `starting` (the Web Lock grant); nothing runs after `destroyed`. */
export type Lifecycle = "starting" | "ready" | "suspended" | "destroyed";

/** Revisions stay far below 2^53: every validator refuses one above MAX_REV, so none is ever claimed. */
export { MAX_REV };

/** The phases of this replica's own attempt at the key (see Attempt). */
export type AttemptPhase = "locking" | "settling" | "settled" | "running";

export type KeyView = {
  lifecycle: Lifecycle;
  /** Highest revision recorded for the key (result or error), 0 when none. */
  recorded: number;
  /** Highest revision of a recorded result (an error does not count), 0 when none. */
  resultRev: number;
  /** Highest revision an attempt of this replica finished (written or dropped as a duplicate). */
  settled: number;
  /** The claim standing in the doc, with this replica's verdict on a foreign claimant. */
  claim?: {
    replicaId: string;
    nonce: string;
    rev: number;
    mine: boolean;
    /** Foreign claims only: the claimant is gone (event) or silent beyond its lease. */
    stale: boolean;
    /** Foreign claims only: when it would go stale by silence (Infinity: only an event can tell). */
    staleAt: number;
    /** Dispatched without a window (ClaimRecord.eager): it outranks a claim of its revision still settling. */
    eager?: boolean;
    /** It stands here only while Yjs holds back a peer's rewrite that deleted it (Lanes.held). */
    held?: boolean;
  };
  /** This replica's own attempt, if one is under way. */
  attempt?: {
    rev: number;
    nonce: string;
    phase: AttemptPhase;
    forListeners: boolean;
    /** Where the sync server placed the claim among rivals (its fence was answered); absent when unknown. */
    order?: "first" | "behind";
    /** With `behind`: the replica whose claim reached the server first. */
    ahead?: string;
    /** The claim was already written again to stand (see `reassert`). */
    reasserted?: boolean;
    /** The revision above ours its result is recorded at (freshness.ts, outran): it answers waiters for it. */
    over?: number;
  };
  /** The revision each waiter (an `ensure`/`refetch` call) needs recorded before it resolves. */
  waiters: readonly number[];
  /** How many subscribers show the key. */
  listeners: number;
  /** This replica crashed (a development simulation): it writes nothing, so no claim of its own ever stands. */
  crashed?: boolean;
  /** Another replica waits on this replica's attempt (it joined the claim: presence.ts, PresenceSelf.waits). */
  awaited?: boolean;
};

/** `refetched`: a waiter here asked past it (its waiters join the newer request: see the engine). */
export type AbortReason = "superseded" | "no-waiters" | "refetched";

export type Action =
  /** Resolve the waiters whose revision is recorded (or all of them: `all`, nothing can ever record theirs). */
  | { type: "resolve"; all?: true }
  /** Abort this replica's attempt and release its claim. */
  | { type: "abort"; reason: AbortReason }
  /** Another replica's claim won the race for the attempt's revision: step back, keep waiting. */
  | { type: "yield"; to: string }
  /** The settle window passed and the claim still stands: send the request. */
  | { type: "dispatch" }
  /** Our claim came first at the server and runs, but another stands in the doc: write ours again. */
  | { type: "reassert" }
  /** Write a claim at `rev` (a takeover of `from`'s stale claim keeps its revision, invariants 4 and 12). */
  | { type: "claim"; rev: number; from?: string }
  /** A live foreign claim: re-check when it would go stale (invariant 9). */
  | { type: "wait"; until: number }
  /** A claim is due but this replica's lock is not held yet. */
  | { type: "await-ready" }
  /** Nobody here is interested: forget the key's state. */
  | { type: "drop" }
  | { type: "none" };

export function decide(view: KeyView): Action {
  const { lifecycle, recorded, claim, attempt, waiters, listeners } = view;
  if (lifecycle === "destroyed" || lifecycle === "suspended") return { type: "none" };
  if (waiters.some((minRev) => minRev <= recorded)) return { type: "resolve" };
  // A result at or above our revision is recorded (another replica came home first): our copy is
  // moot. An error is not: it is evidence about that request only, and our result, when it comes
  // home, replaces it (a failing duplicate must not cost the healthy original, invariant 7).
  if (attempt && attempt.rev <= view.resultRev) return { type: "abort", reason: "superseded" };
  // A waiter here wants a newer revision than ours (an explicit refetch: TanStack cancels the
  // fetch in flight and asks past it, cancelRefetch): abort ours and send the new one at once; its
  // result answers the older waiters too. Every waiter gone: abort. Work taken over for listeners
  // lives while someone shows the key; and so does work another replica joined while it still
  // waits (invariant 11: aborted, it would send the request again).
  if (attempt && waiters.some((minRev) => minRev > Math.max(attempt.rev, attempt.over ?? 0))) return { type: "abort", reason: "refetched" };
  if (attempt && !waiters.length && !((attempt.forListeners && listeners > 0) || view.awaited))
    return { type: "abort", reason: "no-waiters" };
  if (attempt) {
    // Waiting for the key's lock, another tab's claim arrived: it won, step back.
    if (attempt.phase === "locking" && claim && !claim.mine && !claim.stale && claim.rev >= attempt.rev)
      return { type: "yield", to: claim.replicaId };
    // The sync server saw a rival's claim first: it is the one that runs.
    if (attempt.order === "behind" && (attempt.phase === "settling" || attempt.phase === "settled"))
      return { type: "yield", to: attempt.ahead ?? "" };
    const rival = claim && claim.nonce !== attempt.nonce && !claim.mine ? claim : undefined;
    // Running with no claim standing (a rival's released it: a takeover made across a partition,
    // let go as it recorded an error ours replaces), our request is unseen work (invariants 4, 8).
    // So it is when ours stands only while Yjs holds back the takeover that deleted it: a replica
    // that hears us through this one is passed the delete alone, and reads no claim.
    if (attempt.phase === "running" && !attempt.reasserted) {
      const unseen = !claim || (claim.held && claim.nonce === attempt.nonce);
      if ((unseen && !view.crashed) || (attempt.order === "first" && (!claim || (rival && rival.rev <= attempt.rev && !rival.eager))))
        return { type: "reassert" };
    }
    // Our own work is never judged by the clock (invariant 2); it is only re-read after settling.
    if (attempt.phase !== "settled") return { type: "none" };
    // No claim stands at all (a rival's won the contest, then was let go): sent now, our request
    // would be unseen (invariant 4). Step back; the waiters here claim again.
    // A crashed replica's claim never reaches the doc: stepping back would claim again for ever.
    if (!claim && !view.crashed) return { type: "yield", to: "" };
    // Yjs has no compare-and-set: after the sync round-trip, yield if another claim won. First at
    // the server, a rival of our revision came later and yields to ours: only a newer revision, or
    // an eager claim (dispatched before either was ordered), outranks it.
    if (rival && rival.rev >= attempt.rev && (attempt.order !== "first" || rival.rev > attempt.rev || rival.eager))
      return { type: "yield", to: rival.replicaId };
    return { type: "dispatch" };
  }
  if (waiters.length === 0 && listeners === 0) return { type: "drop" };
  const active = claim && claim.rev > recorded ? claim : undefined;
  // The revision a waiter here needs (none: a claimed one is finished for the listeners). Claimed
  // work is joined unless a waiter wants a newer revision (a refetch past it): then that one is
  // claimed over it, and the older request is not sent again.
  const rev = Math.max(...waiters, active ? active.rev : recorded + 1);
  let target: Action = { type: "claim", rev };
  if (active && !active.mine) {
    if (!active.stale) return { type: "wait", until: active.staleAt };
    // Abandoned work is finished by anyone who waits for it or shows it: a spinner whose claimant
    // died must resolve. Takeover keeps the revision (invariants 4 and 12) unless a waiter here
    // wants a newer one.
    target = { type: "claim", rev, from: active.replicaId };
  }
  // Showing a key never starts new work, but our own claim left without an attempt (released
  // on pagehide, then the page came back) is finished like an abandoned one.
  // A live foreign claim above the latest result, at or below a newer error, though, still works
  // (deriveSnapshot): re-check once it would go stale, and tell the panes that show it pending.
  else if (waiters.length === 0 && !active)
    return claim && !claim.mine && !claim.stale && claim.rev > view.resultRev ? { type: "wait", until: claim.staleAt } : { type: "none" };
  // Never send a revision this replica already settled again: its outcome was written or lost.
  if (target.rev <= view.settled) target = { type: "claim", rev: view.settled + 1 };
  if (target.rev > MAX_REV) return { type: "resolve", all: true };
  if (lifecycle === "starting") return { type: "await-ready" };
  return target;
}

/** How many decisions one key may take in a row before the loop stops (each one changes the view). */
export const MAX_STEPS = 16;

/** Actions after which the engine stops asking: they wait for an event, a timer or nothing. */
export function isTerminal(action: Action): boolean {
  return action.type === "wait" || action.type === "await-ready" || action.type === "drop" || action.type === "none";
}
