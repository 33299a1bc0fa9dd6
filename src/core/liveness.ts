import type { BeatRecord, ClaimRecord } from "./records.ts";

/** Why a foreign claim is believed abandoned. */
export type StaleReason = "abandoned" | "presence-left" | "lock-released" | "lease-silence" | "disowned";

/** This replica's judgement of a foreign claim, on its own clock. */
export type Verdict = {
  stale: boolean;
  reason?: StaleReason;
  /** When it goes stale by silence: 0 when an event already made it stale, Infinity when only an event can. */
  staleAt: number;
  /** Last sign of life of the claimant for this claim (its first sighting or a heartbeat that covers it). */
  lastSignAt: number;
  /** The lease applied: the claimant's own, bounded by MAX_OBSERVED_LEASE_MS. */
  leaseMs: number;
  /** The claimant is watched by an exact event (a Web Lock of this browser): no lease applies. */
  exact: boolean;
};

/**
 * However long a lease a claim asks for, an observer believes a silent claimant for at most this
 * long: a peer cannot block a key for a week by writing `leaseMs: 7 days` (heartbeats keep a slow
 * but healthy claimant alive far below it).
 */
export const MAX_OBSERVED_LEASE_MS = 10 * 60_000;

type BeatSeen = { n: number; mono: number; nonces: ReadonlySet<string> | undefined };

/**
 * A clock that a step of the wall clock does not move (an NTP correction, a clock set by hand, a
 * VM resumed): how long a claimant has been silent is measured on it. Most platforms also stop it
 * while the machine sleeps, so a laptop that wakes hears a lease of silence before it takes over.
 */
export const monotonicNow = (): number =>
  typeof performance !== "undefined" && typeof performance.now === "function" ? performance.now() : Date.now();

/**
 * What this replica has *seen* of other replicas, on its own clock (invariant 3): never compares
 * another machine's timestamp with Date.now(), so clock skew cannot make a claim stale or fresh.
 * Times in and out are this replica's Date.now(); the silence between them is measured on
 * `mono`, so a step of this replica's wall clock cannot either (a step forward took a live,
 * heartbeating claim over at once: two requests).
 */
export class Liveness {
  constructor(private readonly mono: () => number = monotonicNow) {}

  /**
   * Per key, the claim seen (`mono` its first sighting) and, for a takeover of its revision, the
   * nonce of the claim it replaced: the one it names, or else the one seen before it.
   */
  private readonly claimSeen = new Map<string, { claim: ClaimRecord; mono: number; prev: string | undefined }>();
  private readonly beatSeen = new Map<string, BeatSeen>();
  /** Replicas whose presence (awareness) was removed: their claims are stale at once. */
  private readonly gone = new Set<string>();
  /** Replicas whose Web Lock this browser saw released: dead now, no timer needed. */
  private readonly released = new Set<string>();

  /** A claim nonce seen for the first time starts its observation window now (returns true then). */
  seeClaim(key: string, claim: ClaimRecord | undefined): boolean {
    if (!claim) {
      this.claimSeen.delete(key);
      return false;
    }
    const seen = this.claimSeen.get(key);
    if (seen?.claim.nonce === claim.nonce) return false;
    const prev = claim.replaced ?? (seen?.claim.rev === claim.rev ? seen.claim.nonce : undefined);
    this.claimSeen.set(key, { claim, mono: this.mono(), prev });
    return true;
  }

  /** Returns true when the heartbeat changed (a sign of life). */
  seeBeat(replicaId: string, beat: BeatRecord | undefined): boolean {
    if (beat === undefined) {
      this.beatSeen.delete(replicaId);
      return false;
    }
    const seen = this.beatSeen.get(replicaId);
    if (seen && seen.n === beat.n) return false;
    this.beatSeen.set(replicaId, { n: beat.n, mono: this.mono(), nonces: beat.nonces ? new Set(beat.nonces) : undefined });
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

  /**
   * A replica whose lock was granted to us shows a sign of life — a page back from the
   * back/forward cache holds its lock again under the same id. Returns whether it was released;
   * its lock is then to be watched again (a dead one's is granted at once, and it is released again).
   */
  revive(replicaId: string): boolean {
    return this.released.delete(replicaId);
  }

  /**
   * Forget departed replicas no claim refers to any more, once there are many of them: the sets
   * would otherwise grow for ever in a long-lived page (a few are kept for the inspector).
   */
  prune(claimants: () => ReadonlySet<string>, keep = 64): void {
    if (this.gone.size + this.released.size <= keep) return;
    const live = claimants();
    for (const set of [this.gone, this.released]) for (const id of set) if (!live.has(id)) set.delete(id);
  }

  /** Replicas seen to leave (presence) or die (lock): for the inspector. */
  departed(): { gone: ReadonlySet<string>; released: ReadonlySet<string> } {
    return { gone: this.gone, released: this.released };
  }

  /** When this replica last saw a heartbeat of `replicaId`, as `now` less the silence since. */
  beatSeenAt(replicaId: string, now: number): number | undefined {
    const beat = this.beatSeen.get(replicaId);
    return beat && now - (this.mono() - beat.mono);
  }

  /**
   * Last sign of life for this claim: its first sighting or a heartbeat that covers its nonce, as
   * `now` less the silence since, measured on the monotonic clock.
   */
  lastActivity(key: string, claim: ClaimRecord, now: number): number {
    this.seeClaim(key, claim);
    const { mono, prev } = this.claimSeen.get(key)!;
    // A claimant whose claim of this revision was taken over by a replica its heartbeats did not
    // reach still runs it while its beats name that claim: the work lives (invariant 3), and a
    // replica that hears it but not the taker must not take over a second time.
    let sign = Math.max(mono, this.beatFor(claim));
    // Whoever beats for the replaced nonce: a replica that loaded the doc after the takeover
    // cannot tell its claimant (a forger could as well beat for its own claim).
    if (prev) for (const beat of this.beatSeen.values()) if (beat.nonces?.has(prev)) sign = Math.max(sign, beat.mono);
    return now - (this.mono() - sign);
  }

  /**
   * When `claim`'s claimant last beat for it: a heartbeat vouches only for the claims it names, so
   * a forged claim under a live replica's id is not kept alive by its beats for its own work
   * (beats of older versions, naming none, vouch for all of their writer's claims).
   */
  private beatFor(claim: ClaimRecord): number {
    const beat = this.beatSeen.get(claim.replicaId);
    return beat && (beat.nonces?.has(claim.nonce) ?? true) ? beat.mono : -Infinity;
  }

  /**
   * `exact`: the claimant is watched by an event that cannot miss (its Web Lock, same browser), so
   * no lease applies — a hidden tab whose timers the browser throttles is still alive.
   */
  verdict(key: string, claim: ClaimRecord, now: number, exact = false): Verdict {
    const leaseMs = Math.min(claim.leaseMs, MAX_OBSERVED_LEASE_MS);
    const lastSignAt = this.lastActivity(key, claim, now);
    const base = { lastSignAt, leaseMs, exact };
    const reason: StaleReason | undefined = claim.abandoned
      ? "abandoned"
      : this.released.has(claim.replicaId)
        ? "lock-released"
        : this.gone.has(claim.replicaId)
          ? "presence-left"
          : undefined;
    if (reason) return { ...base, stale: true, reason, staleAt: 0 };
    if (exact) return { ...base, stale: false, staleAt: Infinity };
    const staleAt = lastSignAt + leaseMs;
    return now >= staleAt ? { ...base, stale: true, reason: "lease-silence", staleAt } : { ...base, stale: false, staleAt };
  }
}
