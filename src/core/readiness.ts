import type { ClaimEngine } from "./engine.ts";
import type { KeyState } from "./job.ts";
import { recordedRev } from "./snapshot.ts";
import { demandedRev, hasJudge, judgeWaiters, notifyListeners } from "./waiters.ts";

/**
 * Waits for the store's readiness (EngineOptions.ready, or a reconnect's `resync`) once, however
 * many keys ask: then the engine is ready, and every key's waiters asked while starting are judged
 * and every key decided again.
 */
export function awaitReady(e: ClaimEngine, ready = e.opts.ready): void {
  if (e.waitingReady || !ready) return;
  const wait = (e.waitingReady = ready());
  void wait.then(() => {
    if (e.waitingReady !== wait) return;
    e.waitingReady = undefined;
    if (e.lifecycle !== "starting") return;
    e.lifecycle = "ready";
    // The claims decided now have waited: a reconnect that failed at once is not waited for again.
    e.readied = true;
    for (const st of [...e.keys.all()]) {
      judge(e, st, true);
      e.refresh(st);
    }
    e.readied = false;
  });
}

/** Judges the key's waiters asked while starting against what is recorded now (judgeWaiters). */
export function judge(e: ClaimEngine, st: KeyState, final: boolean): void {
  // Every resolve passes here: nothing to read unless a waiter asked while starting.
  if (!hasJudge(st)) return;
  const { result, error, claim } = e.reader.read(st);
  const recorded = recordedRev(result, error);
  const next = (skip?: boolean) => demandedRev("refetch", recorded, claim?.rev, st.attempt?.rev, skip);
  // Its subscribers were told of the outcome as if it were taken: pending again.
  if (judgeWaiters(st, { result, error, recorded }, next, final, e.opts.at)) notifyListeners(st, e.reader.compute(st));
}
