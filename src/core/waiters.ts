import { callAll } from "./emitter.ts";
import { abortError } from "./errors.ts";
import { metWhenAsked, type TrustedAt } from "./freshness.ts";
import type { KeyState, Waiter } from "./job.ts";
import { MAX_REV, type ErrorRecord, type ResultRecord } from "./records.ts";
import type { Snapshot } from "./types.ts";

/**
 * The revision an `ensure` or `refetch` call waits for (0: resolve now with what is recorded).
 * `refetch` wants a revision newer than what is recorded now, joining one already claimed — or,
 * `skipInFlight`, newer than that one too (see EnsureOptions.skipInFlight).
 */
export function demandedRev(
  mode: "ensure" | "refetch",
  recorded: number,
  claimRev: number | undefined,
  attemptRev: number | undefined,
  skipInFlight = false,
): number {
  if (mode === "ensure") return recorded > 0 ? 0 : 1;
  const active = Math.max(
    claimRev !== undefined && claimRev > recorded ? claimRev : 0,
    attemptRev !== undefined && attemptRev > recorded ? attemptRev : 0,
  );
  // Nothing past the bound can be claimed (a peer's records at MAX_REV): the ask takes the outcome
  // at the bound, recorded or in flight, as any ask does (a pending snapshot would answer nothing).
  return Math.min(skipInFlight ? Math.max(active, recorded) + 1 : active || recorded + 1, MAX_REV);
}

/** A waiter for `minRev` on the key; its signal withdraws it (then `changed` re-decides the key). */
export function addWaiter(
  st: KeyState,
  minRev: number,
  signal: AbortSignal | undefined,
  changed: () => void,
  judge?: Waiter["judge"],
): Promise<Snapshot> {
  return new Promise<Snapshot>((resolve, reject) => {
    const onAbort = () => {
      st.waiters.delete(waiter);
      reject(abortError(signal?.reason));
      changed();
    };
    const waiter: Waiter = {
      minRev,
      resolve,
      reject,
      cleanup: () => signal?.removeEventListener("abort", onAbort),
      ...(judge ? { judge } : {}),
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    st.waiters.add(waiter);
    changed();
  });
}

/**
 * Judges the waiters asked while the store was starting (Waiter.judge) against the outcome they
 * would take now: one older than the demand is not taken, and the waiter wants `next` instead, as
 * an ensure that saw it at once would have. `final`: the store is ready (what was persisted is
 * in), so what is recorded from now on came after the ask and the rest need no judging.
 * Returns whether a waiter now wants more (the key is pending again for its subscribers).
 */
export function judgeWaiters(
  st: KeyState,
  outcome: { result: ResultRecord | undefined; error: ErrorRecord | undefined; recorded: number },
  next: (skip?: boolean) => number,
  final: boolean,
  trust: TrustedAt,
): boolean {
  let raised = false;
  for (const w of st.waiters) {
    if (!w.judge) continue;
    if (w.minRev <= outcome.recorded) {
      if (!metWhenAsked(outcome.result, outcome.error, w.judge.askedAt, w.judge.maxAgeMs, trust, !!w.judge.joins)) {
        // skipInFlight: the claim the same sync brought in was made before the ask, as at `final`.
        w.minRev = next(w.judge.skip);
        raised = true;
      }
      delete w.judge;
    } else if (final) {
      // A skipInFlight refetch skips the claims the store sees once ready too: they came before it.
      if (w.judge.skip) w.minRev = Math.max(w.minRev, next(true));
      delete w.judge;
    }
  }
  return raised;
}

/** Whether a waiter of the key still has its outcome to judge (Waiter.judge). */
export function hasJudge(st: KeyState): boolean {
  for (const w of st.waiters) if (w.judge) return true;
  return false;
}

/**
 * Resolves the waiters whose revision is recorded (all of them with `all`), with the snapshot once
 * the engine's step is done: our request below that outcome may be aborted next, its waiters gone,
 * and a caller told "pending" would wait on work that no longer runs (invariant 8).
 */
export function resolveWaiters(st: KeyState, recorded: number, snapshot: () => Snapshot, all = false): void {
  for (const w of st.waiters) {
    if (!all && recorded < w.minRev) continue;
    st.waiters.delete(w);
    w.cleanup();
    queueMicrotask(() => w.resolve(settled(snapshot())));
  }
}

/**
 * What an answered ask resolves with: the recorded outcome it took, settled, as fetchQuery resolves
 * with data. The key's snapshot may read pending meanwhile (another replica's newer claim, or a
 * skipInFlight refetch here waiting past that outcome): a truth for its subscribers, no answer.
 */
export function settled<T>(snap: Snapshot<T>): Snapshot<T> {
  if (snap.status !== "pending" || !("data" in snap || snap.error)) return snap;
  const { claim: _, ...outcome } = snap;
  return { ...outcome, status: snap.error ? "error" : "success" };
}

export function rejectWaiters(st: KeyState, error: unknown): void {
  for (const w of st.waiters) {
    w.cleanup();
    w.reject(error);
  }
  st.waiters.clear();
}

/** Tells the key's subscribers when its snapshot changed identity; a throwing one never stops the others. */
export function notifyListeners(st: KeyState, snapshot: Snapshot): void {
  if (snapshot === st.notified) return;
  st.notified = snapshot;
  callAll(st.listeners, [], "subscriber");
}
