import { Attempt } from "./attempt.ts";
import { rivalAhead } from "./claim-rivals.ts";
import { decide, type KeyView } from "./decide.ts";
import type { ClaimEngine } from "./engine.ts";
import type { KeyState } from "./job.ts";

/**
 * Claims the key for this replica at `rev` (taking over `takeoverOf`'s claim, if given): an
 * Attempt wired to the engine's records, heartbeat, key lock, settle window and write batch.
 */
export function startAttempt(e: ClaimEngine, st: KeyState, rev: number, takeoverOf?: string): void {
  const job = st.job;
  if (!job) return;
  const { records, replicaId, emit } = e.opts;
  const standby = e.standby;
  const replaced = st.replaced;
  st.replaced = undefined;
  const attempt: Attempt = new Attempt(job, rev, st.waiters.size === 0, {
    records,
    replicaId,
    keyLock: standby ? (key, signal) => standby.take(key, signal) : undefined,
    resettle: e.opts.settle,
    replaces: replaced,
    emit,
    joined: st.joined,
    heartbeat: e.heartbeat,
    browserId: e.opts.browserId,
    settle: e.opts.settle(),
    write: (fn) => e.write(fn),
    batch: (fn, before) => e.batch.queue(fn, before),
    seen: (record) => e.liveness.seeClaim(st.key, record),
    rivalAhead: (key, nonce, rev) => rivalAhead(records.claims, e.liveness, replicaId, key, nonce, rev),
    watchClaims: e.watchers.watch,
    over: () => e.reader.over(st),
    runsAtOnce: (): boolean => {
      const view = e.reader.view(st);
      if (!view.attempt) return false;
      const claim: KeyView["claim"] = { replicaId, nonce: attempt.nonce, rev, mine: true, stale: false, staleAt: Infinity };
      return decide({ ...view, claim, attempt: { ...view.attempt, phase: "settled" } }).type === "dispatch";
    },
    changed: () => {
      if (st.attempt === attempt && attempt.phase === undefined) {
        st.attempt = undefined;
        st.settled = Math.max(st.settled, attempt.rev);
      }
      e.keys.markDirty([st.key]);
    },
  });
  st.attempt = attempt;
  // The nonces this replica issued for the key (the last few: older claims are long overwritten).
  st.nonces = [...st.nonces.slice(-7), attempt.nonce];
  attempt.claim(takeoverOf);
  if (attempt.phase === "locking") e.opts.changed?.();
}
