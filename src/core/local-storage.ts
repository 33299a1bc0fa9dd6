/**
 * localStorage, guarded: absent in workers and Node, and even reading `localStorage` throws in
 * sandboxed iframes and with storage disabled.
 */
type StorageLike = { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };

function storage(): StorageLike | undefined {
  try {
    const s = (globalThis as { localStorage?: StorageLike | null }).localStorage;
    return s ?? undefined;
  } catch {
    return undefined;
  }
}

/** The stored value (null: none), or undefined when there is no usable storage. */
export function readStored(key: string): string | null | undefined {
  try {
    return storage()?.getItem(key);
  } catch {
    return undefined;
  }
}

/** Stores the value; false when there is no usable storage or it refused (full, denied). */
export function writeStored(key: string, value: string): boolean {
  try {
    const s = storage();
    if (!s) return false;
    s.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}

/** Removes the value, where there is usable storage. */
export function removeStored(key: string): void {
  try {
    storage()?.removeItem(key);
  } catch {
    // Storage denied: nothing of ours can be there to remove.
  }
}
