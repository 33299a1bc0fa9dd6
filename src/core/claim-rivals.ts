import type { RecordMap } from "./lanes.ts";
import type { Liveness } from "./liveness.ts";
import { claimRank, type ClaimRecord } from "./records.ts";

/**
 * The strongest live rival of a claim among the key's racing entries (see AttemptDeps.rivalAhead).
 * Only events make one stale here (abandoned, its presence left, its lock released): it has just
 * arrived, and reading the lease verdict would restart the observation of the claim that stands.
 */
export function rivalAhead(
  claims: RecordMap<ClaimRecord>,
  liveness: Liveness,
  replicaId: string,
  key: string,
  nonce: string,
  rev: number,
): ClaimRecord | undefined {
  const { gone, released } = liveness.departed();
  let best: ClaimRecord | undefined;
  for (const c of claims.contenders(key)) {
    if (c.nonce === nonce || c.replicaId === replicaId || c.rev < rev || c.abandoned) continue;
    if (gone.has(c.replicaId) || released.has(c.replicaId)) continue;
    if (!best || claimRank(c) > claimRank(best)) best = c;
  }
  return best;
}

/**
 * Attempts whose fence is unanswered, by key: they note every rival claim as it arrives (see
 * AttemptDeps.watchClaims). `stop` ends the watch on the doc.
 */
export function claimWatchers(claims: RecordMap<ClaimRecord>) {
  const watchers = new Map<string, Set<() => void>>();
  const unwatch = claims.onChange((keys) => {
    if (watchers.size === 0) return;
    const [few, many] = keys.size < watchers.size ? [keys, watchers] : [watchers.keys(), keys];
    for (const key of few) if (many.has(key)) for (const seen of watchers.get(key) ?? []) seen();
  });
  return {
    watch(key: string, seen: () => void): () => void {
      let set = watchers.get(key);
      if (!set) watchers.set(key, (set = new Set()));
      set.add(seen);
      return () => {
        set.delete(seen);
        if (set.size === 0 && watchers.get(key) === set) watchers.delete(key);
      };
    },
    stop(): void {
      unwatch();
      watchers.clear();
    },
  };
}
