/**
 * Round trips to a sync server, as its connector measured them, and the settle window they size.
 * Two replicas that claim one key before either saw the other's claim must each wait until the
 * other's claim could have arrived: a trip up to the server and down to the peer each way, about
 * two round trips of one replica when the peers are alike.
 */
export class TripSamples {
  private readonly samples: number[] = [];
  /** Read by every claim's window (settleFor); recomputed only when a sample arrives. */
  private cachedP95: number | undefined;

  constructor(private readonly keep = 20) {}

  add(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.samples.push(ms);
    if (this.samples.length > this.keep) this.samples.shift();
    this.cachedP95 = undefined;
  }

  get count(): number {
    return this.samples.length;
  }

  /** The 95th percentile of the recent samples (the highest of fewer than 20), or undefined. */
  p95(): number | undefined {
    if (this.samples.length === 0) return undefined;
    if (this.cachedP95 === undefined) {
      const sorted = [...this.samples].sort((a, b) => a - b);
      this.cachedP95 = sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)];
    }
    return this.cachedP95;
  }
}

/**
 * The settle window never goes below this (a busy peer delivers and indexes a claim late: 14–43 ms
 * measured by bench:cluster between quiet processes, where loopback probes alone say 1–5) nor above MAX.
 */
export const MIN_SIZED_SETTLE_MS = 50;
export const MAX_SIZED_SETTLE_MS = 1000;

/** Two round trips at the 95th percentile, plus a margin for the peer's own event loop; bounded. */
export function windowForTrip(p95TripMs: number): number {
  return Math.min(MAX_SIZED_SETTLE_MS, Math.max(MIN_SIZED_SETTLE_MS, Math.ceil(2 * p95TripMs + 10)));
}
