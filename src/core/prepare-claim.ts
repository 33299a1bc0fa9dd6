import type { Action } from "./decide.ts";
import type { ClaimEngine } from "./engine.ts";
import type { KeyState } from "./job.ts";
import { awaitReady } from "./readiness.ts";

/**
 * Readies what a claim that may follow soon needs: the store's own readiness (a replica that
 * waits on a live claim gets ready now, not at the claimant's death), and the key's lock, queued
 * for now (see KeyLockStandby) — for a claim due once the store is ready, or for the takeover of
 * a claimant of this browser, whose crash is seen by its lock. Any other decision lets it go.
 */
export function prepareClaim(e: ClaimEngine, st: KeyState, action: Action): void {
  // Waiting on a live foreign claim, the claimant is told so (it keeps its request for us once
  // its own interest ends), and told when we stop: resolved, aborted, or taking it over.
  let waits: number | undefined;
  if (action.type === "wait") for (const w of st.waiters) waits = Math.min(w.minRev, waits ?? w.minRev);
  if (waits !== st.waitsFor) e.opts.waits?.(st.key, (st.waitsFor = waits));
  // Waiting on it (the claim the waiters' view read: st.joined), an ask its result answers joined
  // the claimant's request: this replica sends nothing.
  const claim = st.joined;
  if (claim && waits! <= claim.rev && st.told !== claim.rev)
    e.opts.emit({ type: "joined", kind: st.kind, key: st.key, rev: (st.told = claim.rev), to: claim.replicaId });
  if (action.type === "wait" && e.lifecycle === "starting") awaitReady(e);
  if (!e.standby) return;
  // Not once started (a reconnect's sync, at a claim or a first ask): the other tabs of this
  // browser, in sync, claim meanwhile.
  const soon = (action.type === "await-ready" && !e.opts.started?.()) || (action.type === "wait" && action.until === Infinity);
  if (soon) e.standby.want(st.key);
  else e.standby.drop(st.key);
}
