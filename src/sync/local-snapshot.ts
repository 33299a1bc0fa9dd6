import { applyUpdate, encodeStateAsUpdate, type Doc } from "yjs";
import { readStored, removeStored, writeStored } from "../core/local-storage.ts";
import { unrefTimer } from "../core/unref-timer.ts";
import { snapshotKey } from "./persisted-mark.ts";

/**
 * A copy of the doc's state in localStorage, read synchronously when the tabs connect: a return
 * visit's first render then finds the results recorded before (the hooks' initialData), where
 * IndexedDB answers only after opening (hundreds of milliseconds while several tabs boot). It is
 * a Yjs update, so however old it is it merges with what IndexedDB and the other tabs hold; it
 * never counts as the database read (claims still wait for that), it only shows sooner what the
 * doc held. TanStack's persister keeps its cache in localStorage for the same reason.
 */

/**
 * Largest state (encoded bytes) kept by default. localStorage is small (about 5 MB an origin, the
 * app's too) and synchronous: in chromium a 256 KiB copy took 30–80 ms of main thread to write
 * (base64 and setItem) and 4–18 to read, 64 KiB 7–24 and 2–8.
 */
export const DEFAULT_SNAPSHOT_BYTES = 64 * 1024;
/** At most one write a second while the doc changes (as TanStack's persister's throttleTime). */
const WRITE_EVERY_MS = 1000;
/**
 * While the state is over the limit, a change looks again at most this often: only encoding tells
 * the size (a deletion's update is small whatever it frees), and a 1–1.5 MiB state took 6–60 ms to
 * encode in Node, too much once a second all day but not once a minute.
 */
const OVER_LOOK_EVERY_MS = 60_000;

// The platform's base64 (btoa, atob: every browser, Node 16+): lib0's adds a kilobyte of its
// environment detection to the bundle for the same two calls.
function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x2000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  return btoa(binary);
}

// A plain loop: Uint8Array.from with a mapping function took far longer (256 KiB in Node: 49–82 ms
// against 5–18), and this runs on every tab's boot.
function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Applies the stored copy, if any. A malformed one is dropped with a warning. */
export function loadSnapshot(doc: Doc, name: string): void {
  const key = snapshotKey(name);
  const stored = readStored(key);
  if (typeof stored !== "string") return;
  try {
    applyUpdate(doc, fromBase64(stored));
  } catch (error) {
    // A copy another version wrote, or one cut short: the database still has the state.
    removeStored(key);
    console.warn(`shared-fetch: dropped the doc copy in localStorage "${key}" (not a Yjs update)`, error);
  }
}

export type SnapshotKeeper = {
  /** Writes now if a change is waiting (the page is going away). */
  flush(): void;
  /** Stops the copy and removes it: the database it stands beside is gone (a logout elsewhere). */
  drop(): void;
  destroy(): void;
};

/**
 * Keeps the copy up to date: written a second after a change at most once a second, and at
 * `flush`. A state larger than `maxBytes` removes the copy, so no old copy outlives the one that
 * could not be written; a change then looks again a minute later, and once retention's sweeps
 * have shrunk the state to fit the copy is written again (a tab open all day keeps its return
 * visits fast). One storage refuses ends the copy for this connection and removes it: refused is
 * also what no usable storage looks like (a worker, storage denied), where a retry would only
 * spend an encode, and a full origin is the app's own data to free. Changes
 * applied with an origin in `notOurs` start no write: another tab's changes are its to keep (each
 * write reaches every tab of the origin's storage), and what IndexedDB loads is kept already.
 */
export function keepSnapshot(doc: Doc, name: string, maxBytes: number, notOurs: readonly unknown[]): SnapshotKeeper {
  const key = snapshotKey(name);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let over = false;
  const write = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    const state = encodeStateAsUpdate(doc);
    // Removed as the state passes the limit; a copy another tab writes after that is its own.
    if (state.length > maxBytes) {
      if (!over) removeStored(key);
      over = true;
    } else if (writeStored(key, toBase64(state))) over = false;
    else stop(true);
  };
  const onUpdate = (_update: Uint8Array, origin: unknown): void => {
    if (timer === undefined && !stopped && !notOurs.includes(origin))
      timer = unrefTimer(setTimeout(write, over ? OVER_LOOK_EVERY_MS : WRITE_EVERY_MS));
  };
  const stop = (remove: boolean): void => {
    stopped = true;
    clearTimeout(timer);
    timer = undefined;
    doc.off("update", onUpdate);
    if (remove) removeStored(key);
  };
  doc.on("update", onUpdate);
  const flush = (): void => {
    if (timer !== undefined) write();
  };
  return {
    flush,
    drop: () => stop(true),
    destroy: () => {
      flush();
      stop(false);
    },
  };
}
