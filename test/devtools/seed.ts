import * as Y from "yjs";
import { ROOT, TABLES } from "../../src/internals.ts";

export type SeedOptions = {
  /** Every `errorEvery`-th key gets an HTTP error beside its result (default 10). */
  errorEvery?: number;
  /** Every `claimEvery`-th key gets a live claim of `claimant` on a newer revision (default: none). */
  claimEvery?: number;
  claimant?: string;
  writer?: string;
  origin?: string;
};

/**
 * `n` keys as a peer would have written them, in one lane and one transaction: the store's own
 * writes replace a record by scanning every lane (fine for a page's few keys, slow for a thousand
 * written one by one), and a fixture should cost nothing. Records are those of the storage layout.
 */
export function seedKeys(doc: Y.Doc, n: number, opts: SeedOptions = {}): string[] {
  const { errorEvery = 10, claimEvery = 0, claimant = "peer-claimant", writer = "peer-writer", origin = "https://api.example.test" } = opts;
  const keys: string[] = [];
  const entries: unknown[] = [];
  let s = 0;
  for (let i = 0; i < n; i++) {
    const key = `seed${String(i).padStart(5, "0")}`.padEnd(64, "0");
    keys.push(key);
    const label = `GET ${origin}/items/${i}`;
    entries.push({
      t: TABLES.results,
      k: key,
      v: { rev: 1, data: { id: i, name: `item ${i}`, tags: ["a", "b"] }, label, by: writer },
      s: ++s,
    });
    if (errorEvery > 0 && i % errorEvery === errorEvery - 1)
      entries.push({ t: TABLES.errors, k: key, v: { rev: 2, message: "HTTP 503 Service Unavailable", status: 503, by: writer }, s: ++s });
    if (claimEvery > 0 && i % claimEvery === 0)
      entries.push({
        t: TABLES.claims,
        k: key,
        v: { replicaId: claimant, nonce: `n${i}`, rev: 3, leaseMs: 5000, label, kind: "fetch" },
        s: ++s,
      });
  }
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    lane.push(entries);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  return keys;
}
