import * as Y from "yjs";

/*
 * Every use of a Yjs field that is not public API (`_start`, `_item`, item ids) lives here, so a
 * Yjs upgrade that renames one breaks this file and its test (test/yjs-internals.test.ts), not the
 * lanes in silence. Checked against yjs 13.6.
 */

/** Any Yjs type (Y.Array, Y.Map, …): only its integration item is read. */
type NestedType = { readonly _item: Y.Item | null };

/** True once the nested type was deleted from its parent (its `_item` is a tombstone). */
export function isDeletedType(type: NestedType): boolean {
  return type._item?.deleted === true;
}

/** The client id that created a nested type (0 for a root type or one not yet integrated). */
export function creatorOf(type: NestedType): number {
  return type._item?.id.client ?? 0;
}

export function eachElement(item: Y.Item, fn: (id: string, value: unknown) => void): void {
  const content = item.content.getContent();
  for (let i = 0; i < content.length; i++) fn(`${item.id.client}:${item.id.clock + i}`, content[i]);
}

/** The live elements of an array with their ids (toArray() has no ids). */
export function forEachLive(array: Y.Array<unknown>, fn: (id: string, value: unknown) => void): void {
  for (let item = array._start; item !== null; item = item.right) if (!item.deleted && item.countable) eachElement(item, fn);
}

/** Position of the element `client:clock` in `array`, or -1; a lane is short (Lanes caps it). */
export function indexOfElement(array: Y.Array<unknown>, client: number, clock: number): number {
  let index = 0;
  for (let item = array._start; item !== null; item = item.right) {
    if (item.deleted || !item.countable) continue;
    if (item.id.client === client && clock >= item.id.clock && clock < item.id.clock + item.length) return index + clock - item.id.clock;
    index += item.length;
  }
  return -1;
}

/** Deletes the element `client:clock` of `array` if it is still there. */
export function deleteElement(array: Y.Array<unknown>, client: number, clock: number): void {
  if (isDeletedType(array)) return;
  const at = indexOfElement(array, client, clock);
  if (at >= 0) array.delete(at, 1);
}

/**
 * Whether anything listens to the doc's updates. Every way of syncing a doc — a provider, a
 * connector, two docs wired by hand — listens to them to send what changes; a doc nobody listens
 * to has no replica but this one that could hear a claim. When Yjs no longer keeps its listeners
 * where this reads them, it answers true: a window waited in vain, never a claim raced.
 */
export function hasUpdateListeners(doc: Y.Doc): boolean {
  const observers = (doc as unknown as { _observers?: unknown })._observers;
  if (!(observers instanceof Map)) return true;
  return UPDATE_EVENTS.some((name) => ((observers.get(name) as Set<unknown> | undefined)?.size ?? 0) > 0);
}

const UPDATE_EVENTS = ["update", "updateV2"];

/** What Yjs holds back now (`store.pendingStructs`, until the updates it builds on arrive), as one update. */
export const pendingUpdate = (doc: Y.Doc): Uint8Array | undefined => doc.store.pendingStructs?.update;

/** Each pending update's elements by (table, key), as [id, raw value], decoded once (Yjs replaces it, never changes it). */
const decoded = new WeakMap<Uint8Array, Map<unknown, Map<unknown, [string, unknown][]>>>();

/**
 * The elements a pending update holds, by (table, key). Read from values Yjs decoded: plain
 * data; a GC or Skip struct has no content. Read at every delete a peer makes while it waits:
 * decoded each time, one held back for good (10 000 entries) froze a replica for 9 s at a sweep
 * of 500 records.
 */
export function pendingEntries(update: Uint8Array | undefined): Map<unknown, Map<unknown, [string, unknown][]>> {
  let by = update && decoded.get(update);
  if (update && !by) {
    decoded.set(update, (by = new Map()));
    for (const s of Y.decodeUpdateV2(update).structs)
      (s as Y.Item).content?.getContent().forEach((v, i) => {
        const keys = by!.get(v?.t) ?? by!.set(v?.t, new Map()).get(v?.t)!;
        (keys.get(v?.k) ?? keys.set(v?.k, []).get(v?.k)!).push([`${s.id.client}:${s.id.clock + i}`, v]);
      });
  }
  return by ?? new Map();
}

/** The ids of the entries of `record` a pending update holds. */
export const pendingIds = (update: Uint8Array | undefined, { table, key }: { table: string; key: string }): string[] =>
  pendingEntries(update)
    .get(table)
    ?.get(key)
    ?.map(([id]) => id) ?? [];
