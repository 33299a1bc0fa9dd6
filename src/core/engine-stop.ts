import type { StopReason } from "./attempt-deps.ts";
import type { ClaimEngine } from "./engine.ts";
import { abortError } from "./errors.ts";
import type { KeyState } from "./job.ts";
import { notifyListeners, rejectWaiters } from "./waiters.ts";

/** Stops this replica's own attempt on the key; one a refetch replaced keeps its claim for the next (st.replaced). */
export function stopAttempt(st: KeyState, reason: StopReason): void {
  const attempt = st.attempt;
  if (!attempt) return;
  st.attempt = undefined;
  attempt.stop(reason);
  if (reason === "refetched") st.replaced = attempt;
}

/** Orderly stop: abort local work, release only claims that carry this replica's id (invariant 5). */
export function destroyEngine(e: ClaimEngine): void {
  if (e.lifecycle === "destroyed") return;
  e.lifecycle = "destroyed";
  // Its claims were never seen by anyone: drop what is queued, write nothing more through it.
  e.batch.stop();
  for (const st of e.keys.all()) {
    stopAttempt(st, "destroyed");
    rejectWaiters(st, abortError("shared-fetch: the store was destroyed"));
    // Its subscribers see the last outcome, with no claim in flight: it can see none any more.
    notifyListeners(st, e.reader.compute(st));
  }
  e.keys.stop();
  e.standby?.destroy();
  const { claims } = e.opts.records;
  const own = claims.entries().filter(([, claim]) => claim.replicaId === e.replicaId);
  if (own.length) e.write(() => own.forEach(([key]) => claims.delete(key)));
  e.heartbeat.stop();
  e.sightings.stop();
  e.watchers.stop();
}

/**
 * A page going into the back/forward cache (or frozen) cannot run its requests: abort them and
 * mark its claims abandoned so others take over at once; waiters stay and re-decide on resume.
 */
export function suspendEngine(e: ClaimEngine): void {
  if (e.lifecycle === "destroyed" || e.lifecycle === "suspended") return;
  e.lifecycle = "suspended";
  for (const st of e.keys.all()) {
    stopAttempt(st, "hidden");
    // Its lock let go, the claimant counts its waits no more: they are withdrawn, and published
    // again on resume (unchanged, they would not reach the claimant, which would abort for good).
    if (st.waitsFor !== undefined) e.opts.waits?.(st.key, (st.waitsFor = undefined));
  }
  // A frozen page holds no key: the tabs still running must not queue behind it.
  e.standby?.stop();
}
