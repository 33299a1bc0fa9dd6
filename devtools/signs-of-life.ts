import type { ClaimRecord } from "./core.ts";

/**
 * When this panel last saw each claimant alive, on the panel's own clock: another machine's
 * timestamps are never compared with Date.now() (clocks skew, invariant 3). Everything already in
 * the doc counts as seen when the panel starts, as the store does, so a panel opened late does
 * not call every claim stale at once.
 */
export class SignsOfLife {
  private readonly claims = new Map<string, { nonce: string; at: number }>();
  private readonly beats = new Map<string, { n: number; at: number }>();

  seeClaim(key: string, claim: ClaimRecord | undefined, now: number): void {
    if (!claim) this.claims.delete(key);
    else if (this.claims.get(key)?.nonce !== claim.nonce) this.claims.set(key, { nonce: claim.nonce, at: now });
  }

  seeBeat(replicaId: string, n: number | undefined, now: number): void {
    if (n === undefined) return;
    if (this.beats.get(replicaId)?.n !== n) this.beats.set(replicaId, { n, at: now });
  }

  /** The moment the claim's holder has been silent for its own lease. */
  expiresAt(key: string, claim: ClaimRecord, now: number): number {
    this.seeClaim(key, claim, now);
    const claimAt = this.claims.get(key)!.at;
    const beatAt = this.beats.get(claim.replicaId)?.at ?? -Infinity;
    return Math.max(claimAt, beatAt) + claim.leaseMs;
  }
}
