/**
 * What the boot-sync tests stand in for: a localStorage, an IndexedDB that opens only when told,
 * and Web Locks that show no other replica.
 */

export const markKey = (name: string) => `shared-fetch:persisted:${name}`;

export function fakeStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
}

/**
 * The real (fake-indexeddb) database, whose open answers only when `release()` is called: a
 * database that takes its time.
 */
export function slowIndexedDB() {
  const real = globalThis.indexedDB;
  const held: (() => void)[] = [];
  let released = false;
  const factory = {
    open: (name: string) => {
      const request = real.open(name);
      const gate = {
        set onupgradeneeded(f: (e: Event) => void) {
          request.onupgradeneeded = f;
        },
        set onsuccess(f: (e: Event) => void) {
          request.onsuccess = (e) => (released ? f(e) : held.push(() => f(e)));
        },
        set onerror(f: (e: Event) => void) {
          request.onerror = f;
        },
      };
      return gate;
    },
  };
  return {
    factory,
    release: () => {
      released = true;
      held.splice(0).forEach((f) => f());
    },
  };
}

/**
 * Web Locks that show no other replica: a tab alone does not wait out the answer timeout, and
 * each lock it asks for is granted at once (held by no one else), IndexedDB's writer lock too.
 */
export const noOtherReplica = {
  locks: { query: async () => ({ held: [] }), request: (_name: string, _options: unknown, callback: () => unknown) => callback() },
};

/** Whether `p` settles within 400 ms. */
export const settled = (p: Promise<unknown>) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 400))]);
