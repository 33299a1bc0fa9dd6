import type { ClaimRecord } from "./records.ts";

/**
 * What this replica has *seen* of other replicas, on its own clock (invariant 3): never compares
 * another machine's timestamp with Date.now(), so clock skew cannot make a claim stale or fresh.
 */
export class Liveness {
  private readonly claimSeen = new Map<string, { nonce: string; at: number }>();
  private readonly beatSeen = new Map<string, { n: number; at: number }>();
  /** Replicas whose presence (awareness) was removed: their claims are stale at once. */
  private readonly gone = new Set<string>();
  /** Replicas whose Web Lock this browser saw released: dead now, no timer needed. */
  private readonly released = new Set<string>();

  /** A claim nonce seen for the first time starts its observation window now. */
  seeClaim(key: string, claim: ClaimRecord | undefined, now: number): void {
    if (!claim) {
      this.claimSeen.delete(key);
      return;
    }
    const seen = this.claimSeen.get(key);
    if (!seen || seen.nonce !== claim.nonce) this.claimSeen.set(key, { nonce: claim.nonce, at: now });
  }

  /** Returns true when the heartbeat changed (a sign of life). */
  seeBeat(replicaId: string, n: number | undefined, now: number): boolean {
    if (n === undefined) return false;
    const seen = this.beatSeen.get(replicaId);
    if (seen && seen.n === n) return false;
    this.beatSeen.set(replicaId, { n, at: now });
    return true;
  }

  markGone(replicaId: string): void {
    this.gone.add(replicaId);
  }

  markPresent(replicaId: string): void {
    this.gone.delete(replicaId);
  }

  markReleased(replicaId: string): void {
    this.released.add(replicaId);
  }

  /** Last sign of life of a claim's holder: the claim itself or a heartbeat, whichever came later. */
  lastActivity(key: string, claim: ClaimRecord, now: number): number {
    const seen = this.claimSeen.get(key);
    const claimAt = seen && seen.nonce === claim.nonce ? seen.at : now;
    if (!seen || seen.nonce !== claim.nonce) this.claimSeen.set(key, { nonce: claim.nonce, at: now });
    const beatAt = this.beatSeen.get(claim.replicaId)?.at ?? -Infinity;
    return Math.max(claimAt, beatAt);
  }

  /**
   * When a live-looking claim would go stale, or 0 when it is stale by an event already.
   * `exact`: the claimant is watched by an event that cannot miss (its Web Lock, same browser), so
   * no lease applies — a hidden tab whose timers the browser throttles is still alive.
   */
  staleAt(key: string, claim: ClaimRecord, now: number, exact = false): number {
    if (claim.abandoned || this.gone.has(claim.replicaId) || this.released.has(claim.replicaId)) return 0;
    if (exact) return Infinity;
    return this.lastActivity(key, claim, now) + claim.leaseMs;
  }

  isStale(key: string, claim: ClaimRecord, now: number, exact = false): boolean {
    return now >= this.staleAt(key, claim, now, exact);
  }

  forget(key: string): void {
    this.claimSeen.delete(key);
  }
}
