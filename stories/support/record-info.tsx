import { useCallback, useSyncExternalStore } from "react";
import type { SharedRequest } from "../../src/index.ts";
import { shortOf, type Replicas } from "./replicas.ts";

/** "A: rev 3, answer #4, fresh" — what a replica's doc records for `req`, as freshness reads it. */
export function recordLine(world: Replicas, name: string, req: SharedRequest): string {
  const replica = world.getSnapshot().replicas.find((r) => shortOf(r.name) === name);
  if (!replica) return `${name}: —`;
  const info = replica.store.resultInfo(req);
  if (!info) return `${name}: nothing recorded`;
  const answer = (replica.store.snapshot(req).data as { request?: unknown } | undefined)?.request;
  // `at: 0` is the invalidation's mark: older than any freshness demand, so the next one fetches.
  return `${name}: rev ${info.rev}, answer #${String(answer)}, ${info.at === 0 ? "invalidated (stale everywhere)" : "fresh"}`;
}

/**
 * One line per replica under the panes (data-testid "records"): the revision its doc records for
 * `req`, whose answer it holds, and whether that record is invalidated. Re-rendered on every doc change.
 */
export function RecordInfo({ world, req }: { world: Replicas; req: SharedRequest }) {
  const subscribe = useCallback(
    (listener: () => void) => {
      const offs = world.replicas.map((r) => {
        r.doc.on("update", listener);
        return () => r.doc.off("update", listener);
      });
      return () => offs.forEach((off) => off());
    },
    [world],
  );
  const text = useSyncExternalStore(subscribe, () => world.replicas.map((r) => recordLine(world, shortOf(r.name), req)).join("\n"));
  return (
    <pre data-testid="records" style={{ fontFamily: "system-ui, sans-serif", fontSize: 13, margin: "0.75rem 0 0" }}>
      {`recorded in each doc:\n${text}`}
    </pre>
  );
}

/**
 * Narrates, from now until the returned function is called, each change of a replica's record
 * that no store event tells: at a heal the docs merge by revision, and what each one then reads
 * ("A's doc now records rev 3, answer #4, fresh") is the point of the scenario.
 */
export function narrateRecords(world: Replicas, req: SharedRequest): () => void {
  const said = new Map(world.replicas.map((r) => [r.name, recordLine(world, shortOf(r.name), req)]));
  const look = () => {
    for (const r of world.replicas) {
      const name = shortOf(r.name);
      const line = recordLine(world, name, req);
      if (said.get(r.name) === line) continue;
      said.set(r.name, line);
      world.narration.add({ text: `${name}'s doc now records ${line.slice(name.length + 2)}`, replica: name });
    }
  };
  const timers = new Set<ReturnType<typeof setTimeout>>();
  // After the transaction: the stores read the merged records in their own observers first.
  const later = () => {
    const t = setTimeout(() => (timers.delete(t), look()), 0);
    timers.add(t);
  };
  for (const r of world.replicas) r.doc.on("update", later);
  return () => {
    for (const r of world.replicas) r.doc.off("update", later);
    for (const t of timers) clearTimeout(t);
  };
}
