import * as Y from "yjs";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";

type Watched = { doc: Y.Doc; store: SharedFetchStoreWithExtras };
/** One claim as its claimant wrote it: when, and its own doc clock once the claim was in the doc. */
type Written = { at: number; clock: number; phase: string };

/**
 * Claim round trips between peers of one process (one clock): from the moment a peer's store
 * claims a key to the moment another peer's doc holds that claim, for every (claim, observer)
 * pair. An observer holds a claim once its state vector has reached the claimant's clock just
 * after the claim was written — whichever of the claimant's updates (or another peer's relay)
 * brought it. This is what a settle window must cover: an observer that does not hold a rival's
 * claim when its own window ends dispatches too.
 */
export class ClaimTrips {
  /** Trip times in ms per phase label ("idle", "burst", …). */
  readonly trips = new Map<string, number[]>();
  phase = "idle";
  private readonly written = new Map<number, Written[]>();
  /** observer clientID → claimant clientID → index of the first claim it does not hold yet. */
  private readonly next = new Map<number, Map<number, number>>();
  private readonly stops: (() => void)[] = [];
  /** Time spent in this tracker's own handlers, ms (it runs on the peers' event loop). */
  overheadMs = 0;

  constructor(peers: readonly Watched[]) {
    for (const { doc, store } of peers) {
      const mine: Written[] = [];
      this.written.set(doc.clientID, mine);
      this.next.set(doc.clientID, new Map());
      this.stops.push(
        store.onEvent((event) => {
          if (event.type !== "claimed") return;
          const at = performance.now();
          const phase = this.phase;
          // After the store's write batch of this tick (a microtask queued before this one).
          queueMicrotask(() => mine.push({ at, clock: Y.getState(doc.store, doc.clientID), phase }));
        }),
      );
      const onTransaction = (tr: Y.Transaction): void => {
        if (tr.local) return;
        const t0 = performance.now();
        this.sawTransaction(doc.clientID, tr, t0);
        this.overheadMs += performance.now() - t0;
      };
      doc.on("afterTransaction", onTransaction);
      this.stops.push(() => doc.off("afterTransaction", onTransaction));
    }
  }

  /** Trips of `phase` seen so far, sorted. */
  sorted(phase: string): number[] {
    return [...(this.trips.get(phase) ?? [])].sort((a, b) => a - b);
  }

  /**
   * Trips of `phase` claims to an observer in another process, from its log of [clientID, clock
   * reached, wall ms] (cluster-watcher-process.ts), for the claimants `include` accepts. Sorted.
   */
  tripsToLog(log: readonly [number, number, number][], phase: string, include: (clientID: number) => boolean = () => true): number[] {
    const reached = new Map<number, [number, number][]>();
    for (const [client, clock, at] of log) {
      let list = reached.get(client);
      if (!list) reached.set(client, (list = []));
      list.push([clock, at]);
    }
    const trips: number[] = [];
    for (const [claimant, claims] of this.written) {
      const seen = reached.get(claimant);
      if (!seen || !include(claimant)) continue;
      let j = 0;
      for (const claim of claims) {
        if (claim.phase !== phase) continue;
        while (j < seen.length && seen[j]![0] < claim.clock) j++;
        if (j < seen.length) trips.push(seen[j]![1] - (performance.timeOrigin + claim.at));
      }
    }
    return trips.sort((a, b) => a - b);
  }

  stop(): void {
    this.stops.splice(0).forEach((off) => off());
  }

  private sawTransaction(observer: number, tr: Y.Transaction, now: number): void {
    const next = this.next.get(observer)!;
    tr.afterState.forEach((clock, claimant) => {
      if (claimant === observer || clock === tr.beforeState.get(claimant)) return;
      const claims = this.written.get(claimant);
      if (!claims) return;
      let i = next.get(claimant) ?? 0;
      for (; i < claims.length && claims[i]!.clock <= clock; i++) {
        const claim = claims[i]!;
        let list = this.trips.get(claim.phase);
        if (!list) this.trips.set(claim.phase, (list = []));
        list.push(now - claim.at);
      }
      next.set(claimant, i);
    });
  }
}
