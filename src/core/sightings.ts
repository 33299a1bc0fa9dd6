import type { DocRecords } from "./doc-records.ts";
import { Liveness, type Verdict } from "./liveness.ts";
import type { ClaimRecord } from "./records.ts";

export type SightingsDeps = {
  records: DocRecords;
  replicaId: string;
  /** Keys to decide again (a microtask later, outside the writer's transaction). */
  markDirty: (keys: Iterable<string>) => void;
  /** Whether this replica made the claim (its id and a nonce it issued). */
  owns: (key: string, claim: ClaimRecord) => boolean;
  /** Writes with the claims of this tick. */
  batch: (fn: () => void) => void;
  /** True when the claimant is watched by an exact event (a Web Lock of this browser). */
  watchClaimant?: (claim: ClaimRecord) => boolean;
  /** A replica judged dead by its lock showed a sign of life: watch its lock again. */
  revived?: (replicaId: string) => void;
};

/**
 * What this replica sees of the others through the doc: claims and heartbeats as signs of life,
 * on its own clock (invariant 3), and the verdict on each foreign claim that the engine acts on
 * and the inspector shows.
 */
export class Sightings {
  readonly liveness = new Liveness();
  private readonly dirtyClaims = new Set<string>();
  private readonly unobserve: (() => void)[];

  constructor(private readonly deps: SightingsDeps) {
    const { records } = deps;
    // Everything already in the doc is "seen now": a replica arriving after a crash waits one lease.
    for (const [key, claim] of records.claims.entries()) this.liveness.seeClaim(key, claim);
    for (const [id, beat] of records.beats.entries()) this.liveness.seeBeat(id, beat);
    const onKeys = (keys: Set<string>) => deps.markDirty(keys);
    this.unobserve = [
      records.claims.onChange((keys) => {
        keys.forEach((k) => this.dirtyClaims.add(k));
        deps.markDirty(keys);
      }),
      records.results.onChange(onKeys),
      records.programs.onChange(onKeys),
      records.errors.onChange(onKeys),
      records.beats.onChange((ids) => {
        for (const id of ids) {
          if (!this.liveness.seeBeat(id, records.beats.get(id))) continue;
          this.revive(id);
          this.markClaimantDirty(id);
        }
      }),
    ];
  }

  /** Before deciding: start the silence clock of every claim that changed, on this clock. */
  beforeFlush(): void {
    const { records } = this.deps;
    for (const key of this.dirtyClaims) {
      const claim = records.claims.get(key);
      // A new claim is a sign of life of its claimant (a stale sighting of a dead one is corrected
      // by its lock, granted again at once).
      if (this.liveness.seeClaim(key, claim) && claim && !claim.abandoned) this.revive(claim.replicaId);
      if (claim) this.disown(key, claim);
    }
    this.dirtyClaims.clear();
    this.liveness.prune(() => new Set(records.claims.entries().map(([, c]) => c.replicaId)));
  }

  /** Re-check keys whose claimant was seen to die or to come back (presence, Web Locks). */
  markClaimantDirty(replicaId: string): void {
    const keys = new Set<string>();
    for (const [key, claim] of this.deps.records.claims.entries()) if (claim.replicaId === replicaId) keys.add(key);
    this.deps.markDirty(keys);
  }

  /** The liveness verdict on a claim that is not this replica's own, on this replica's clock. */
  verdict(key: string, claim: ClaimRecord, now = Date.now()): Verdict {
    // Under our id but not made by us (forged, or a namesake): we know nobody works on it.
    if (claim.replicaId === this.deps.replicaId)
      return { stale: true, reason: "disowned", staleAt: 0, lastSignAt: now, leaseMs: claim.leaseMs, exact: true };
    if (this.liveness.seeClaim(key, claim) && !claim.abandoned) this.revive(claim.replicaId);
    return this.liveness.verdict(key, claim, now, this.deps.watchClaimant?.(claim) ?? false);
  }

  stop(): void {
    this.unobserve.forEach((off) => off());
  }

  private revive(replicaId: string): void {
    if (this.liveness.revive(replicaId)) this.deps.revived?.(replicaId);
  }

  /**
   * A claim under our id that we did not make is marked abandoned, so every replica takes it over
   * at once: our heartbeats must not vouch for work nobody does (forged claims).
   */
  private disown(key: string, claim: ClaimRecord): void {
    if (claim.replicaId !== this.deps.replicaId || claim.abandoned || this.deps.owns(key, claim)) return;
    const { claims } = this.deps.records;
    this.deps.batch(() => {
      const now = claims.get(key);
      if (now && now.nonce === claim.nonce && !now.abandoned) claims.set(key, { ...now, abandoned: true });
    });
  }
}
