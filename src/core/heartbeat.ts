import { unrefTimer } from "./unref-timer.ts";
import type { RecordMap } from "./lanes.ts";
import type { BeatRecord } from "./records.ts";

/**
 * Invariant 10: while this replica has requests in flight it bumps one record per replica every
 * leaseMs/3 (of its shortest lease), so observers measure its silence, not a request's duration.
 * Nothing is written while idle.
 */
export class Heartbeat {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private period = 0;
  private n = 0;
  private readonly leases = new Map<{ nonce: string }, number>();
  /** How many works run under each lease length: the shortest is found among a few lengths, not every work. */
  private readonly lengths = new Map<number, number>();

  constructor(
    private readonly beats: RecordMap<BeatRecord & { at?: number }>,
    private readonly replicaId: string,
    private readonly write: (fn: () => void) => void,
  ) {}

  add(work: { nonce: string }, leaseMs: number): void {
    if (this.leases.has(work)) return;
    this.leases.set(work, leaseMs);
    this.lengths.set(leaseMs, (this.lengths.get(leaseMs) ?? 0) + 1);
    this.update();
  }

  remove(work: { nonce: string }): void {
    const leaseMs = this.leases.get(work);
    if (leaseMs === undefined) return;
    this.leases.delete(work);
    const left = this.lengths.get(leaseMs)! - 1;
    if (left) this.lengths.set(leaseMs, left);
    else this.lengths.delete(leaseMs);
    // Gone idle: the running interval stops itself at its next tick without writing (see beat), so
    // back-to-back requests reuse one timer instead of setting and clearing one each.
    if (this.leases.size) this.update();
  }

  stop(): void {
    this.leases.clear();
    this.lengths.clear();
    this.arm(0);
  }

  /**
   * A shorter rhythm is armed now, a longer one at the next beat: re-arming postpones the beat, so
   * short works coming and going faster than their rhythm would never let a long one's beat fire.
   */
  private update(): void {
    const period = Math.max(1, Math.floor(Math.min(...this.lengths.keys()) / 3));
    if (!this.timer || period < this.period) this.arm(period);
  }

  private arm(period: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.period = period;
    // Unref'd: a request in flight keeps a Node process alive by its own socket; an idle rhythm's
    // last tick (up to leaseMs/3 after the last request) must not.
    if (period > 0) this.timer = unrefTimer(setTimeout(() => this.beat(), period));
  }

  private beat(): void {
    this.timer = undefined;
    // Nothing is written while idle.
    if (this.leases.size === 0) return;
    // `at` is the writer's clock and only serves retention; staleness never reads it (invariant 3).
    // It names the claims it vouches for: a forged claim under our id is not kept alive by it.
    const nonces = [...this.leases.keys()].map((work) => work.nonce);
    this.write(() => this.beats.set(this.replicaId, { n: ++this.n, at: Date.now(), nonces }));
    this.update();
  }
}
