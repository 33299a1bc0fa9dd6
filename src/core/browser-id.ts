import { requestLock, type LockManagerLike } from "./locks.ts";
import { randomId } from "./job.ts";
import { readStored, writeStored } from "./local-storage.ts";

const storageKey = "shared-fetch:browser-id";
let cached: string | undefined;

/**
 * A random id shared by every tab of this origin in this browser profile (localStorage), so a
 * replica can tell "claimed from my own browser" (where Web Locks can prove death). Without
 * localStorage it is per module instance: it never claims more sameness than it can prove.
 */
export function getBrowserId(): string {
  cached ??= readOrCreate();
  return cached;
}

function readOrCreate(): string {
  const existing = readStored(storageKey);
  if (existing) return existing;
  const id = randomId();
  if (existing === null) writeStored(storageKey, id);
  return id;
}

const agreedKey = "shared-fetch:browser-id:agreed";
const agreementLock = "shared-fetch:browser-id";
/** Every live tab holds `<prefix><its id>` (shared) for its life: the browser's lock state names the id in use. */
const ID_LOCK_PREFIX = "shared-fetch:browser-id:";

/**
 * Tabs opened at once on a first visit may each have stored an id of their own before they saw
 * each other's. Under one Web Lock the first tab settles the id that counts and holds a lock
 * named after it for its life; every later tab reads that name from the browser's lock state and
 * adopts it. The lock state is the browser's own, consistent across processes: localStorage is
 * not (a write reaches another tab's process later, so two tabs could each find no id under the
 * lock and store their own). So all tabs of a browser name one browser and a crash is found by
 * the lock, not the lease. A returning visit reads the id recorded long ago and waits for no lock
 * (it holds the id's lock in shared mode, which nobody waits on, so that tabs opened later find it).
 */
export function agreeBrowserId(locks: LockManagerLike, tentative: string): Promise<string> {
  const known = storedAgreedId();
  if (known !== undefined) {
    cached = known;
    void holdIdLock(locks, known);
    return Promise.resolve(known);
  }
  return requestLock(locks, agreementLock, { mode: "exclusive" }, async () => {
    const id = (await idInUse(locks)) ?? storedAgreedId() ?? tentative;
    // Storage denied: the lock name alone carries the id to the tabs opened meanwhile.
    if (writeStored(agreedKey, id)) writeStored(storageKey, id);
    // Held before the agreement lock is let go: the next tab under it sees the name.
    await holdIdLock(locks, id);
    return id;
  }).then(
    (id) => {
      const agreed = typeof id === "string" && id ? id : tentative;
      cached = agreed;
      return agreed;
    },
    () => tentative,
  );
}

/** The id a live tab of this browser holds its id lock under, if the lock manager can tell. */
async function idInUse(locks: LockManagerLike): Promise<string | undefined> {
  if (typeof locks.query !== "function") return undefined;
  try {
    const { held = [] } = await locks.query();
    const name = held.map((lock) => lock.name).find((n): n is string => typeof n === "string" && n.startsWith(ID_LOCK_PREFIX));
    const id = name?.slice(ID_LOCK_PREFIX.length);
    return id ? id : undefined;
  } catch {
    return undefined;
  }
}

type IdLock = { locks: LockManagerLike; granted: Promise<void>; release: (() => void) | undefined };
const idLocks = new Map<string, IdLock>();

/**
 * Resolves once this tab holds its id lock (shared, released only when the tab goes or enters the
 * back/forward cache): once per page and id, and only where the lock state can be read (else the
 * name would tell nobody).
 */
function holdIdLock(locks: LockManagerLike, id: string): Promise<void> {
  if (typeof locks.query !== "function") return Promise.resolve();
  const held = idLocks.get(id);
  if (held) return held.granted;
  const lock: IdLock = { locks, granted: Promise.resolve(), release: undefined };
  lock.granted = requestIdLock(id, lock);
  idLocks.set(id, lock);
  watchPage();
  return lock.granted;
}

function requestIdLock(id: string, lock: IdLock): Promise<void> {
  return new Promise<void>((granted) => {
    requestLock(lock.locks, `${ID_LOCK_PREFIX}${id}`, { mode: "shared" }, () => {
      granted();
      return new Promise<void>((release) => (lock.release = release));
    }).catch(() => granted());
  });
}

let pageWatched = false;

/**
 * A held Web Lock keeps a page out of the back/forward cache (page-lifecycle.ts lets the store's
 * locks go for the same reason): the id locks go on pagehide and are held again when the page
 * comes back from the cache. Other tabs, or the stored id, tell the id meanwhile.
 */
function watchPage(): void {
  const win = (globalThis as { window?: Pick<Window, "addEventListener"> }).window;
  if (pageWatched || !win || typeof win.addEventListener !== "function") return;
  pageWatched = true;
  win.addEventListener("pagehide", () => {
    for (const lock of idLocks.values()) {
      lock.release?.();
      lock.release = undefined;
    }
  });
  win.addEventListener("pageshow", (event) => {
    if (!(event as PageTransitionEvent).persisted) return;
    for (const [id, lock] of idLocks) if (!lock.release) lock.granted = requestIdLock(id, lock);
  });
}

function storedAgreedId(): string | undefined {
  return readStored(agreedKey) || undefined;
}
