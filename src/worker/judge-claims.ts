import { internalsOf } from "../core/internals.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";

/**
 * Has a standby's idle store judge each claim as it arrives, as its inspector would: a claim from
 * this browser gets its claimant's lock queued for at once, so the live worker's death is known
 * to this store the moment its lock is released, and the re-sent request takes over without a
 * lock round trip first; then `judged` (the gate queues key locks the live worker holds now).
 * Returns the stop.
 */
export function judgeClaims(store: SharedFetchStoreWithExtras, judged: () => void): () => void {
  const { records, engine } = internalsOf(store);
  let stopped = false;
  const judge = (keys: Iterable<string>) =>
    queueMicrotask(() => {
      if (stopped) return;
      for (const key of keys) {
        const claim = records.claims.get(key);
        if (claim) engine.verdict(key, claim);
      }
      judged();
    });
  const off = records.claims.onChange((keys) => judge([...keys]));
  judge(records.claims.keys());
  return () => {
    stopped = true;
    off();
  };
}
