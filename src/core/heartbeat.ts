import type { RecordMap } from "./lanes.ts";
import type { BeatRecord } from "./records.ts";

/**
 * Invariant 10: while this replica has requests in flight it bumps one record per replica every
 * leaseMs/3 (of its shortest lease), so observers measure its silence, not a request's duration.
 * Nothing is written while idle.
 */
export class Heartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private period = 0;
  private n = 0;
  private readonly leases = new Map<{ nonce: string }, number>();

  constructor(
    private readonly beats: RecordMap<BeatRecord & { at?: number }>,
    private readonly replicaId: string,
    private readonly write: (fn: () => void) => void,
  ) {}

  add(work: { nonce: string }, leaseMs: number): void {
    this.leases.set(work, leaseMs);
    this.update();
  }

  remove(work: { nonce: string }): void {
    if (this.leases.delete(work)) this.update();
  }

  stop(): void {
    this.leases.clear();
    this.update();
  }

  private update(): void {
    const period = this.leases.size === 0 ? 0 : Math.max(1, Math.floor(Math.min(...this.leases.values()) / 3));
    if (period === this.period) return;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.period = period;
    if (period > 0) this.timer = setInterval(() => this.beat(), period);
  }

  private beat(): void {
    // `at` is the writer's clock and only serves retention; staleness never reads it (invariant 3).
    // It names the claims it vouches for: a forged claim under our id is not kept alive by it.
    const nonces = [...this.leases.keys()].map((work) => work.nonce);
    this.write(() => this.beats.set(this.replicaId, { n: ++this.n, at: Date.now(), nonces }));
  }
}
