import type { InspectedSettle, MalformedRecord } from "./core.ts";

/**
 * Structural sharing: Yjs fires on every transaction (a rewrite of the same claim, a cleanup of
 * losing duplicates), so each rebuild is compared with the last one and old objects are kept
 * wherever nothing changed. React then re-renders only what really differs.
 */

/** Equality of the panel's own row objects: plain data, a few levels deep. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && sameData(ra[k], rb[k]));
}

/** `next` with every element equal to its predecessor (matched by `id`) replaced by that one. */
export function shareRows<T>(prev: readonly T[], next: T[], id: (row: T) => string): readonly T[] {
  const old = new Map(prev.map((row) => [id(row), row]));
  const shared = next.map((row) => {
    const before = old.get(id(row));
    return before !== undefined && sameData(before, row) ? before : row;
  });
  return sameList(prev, shared) ? prev : shared;
}

/** Malformed values are a peer's raw content (maybe huge): compared by identity, never walked. */
export function shareMalformed(prev: readonly MalformedRecord[], next: MalformedRecord[]): readonly MalformedRecord[] {
  const same = (a: MalformedRecord, b: MalformedRecord) =>
    a.map === b.map && a.key === b.key && a.reason === b.reason && a.value === b.value;
  return prev.length === next.length && prev.every((m, i) => same(m, next[i]!)) ? prev : next;
}

export function sameSettle(a: InspectedSettle | undefined, b: InspectedSettle | undefined): boolean {
  return (
    a === b ||
    (!!a &&
      !!b &&
      a.ms === b.ms &&
      a.why === b.why &&
      a.eager === b.eager &&
      a.tripMs === b.tripMs &&
      a.fenced === b.fenced &&
      a.refused === b.refused)
  );
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
