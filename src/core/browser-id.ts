import type { LockManagerLike } from "./locks.ts";
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
 * the lock, not the lease. A returning visit reads the id recorded long ago and takes no lock.
 */
export function agreeBrowserId(locks: LockManagerLike, tentative: string): Promise<string> {
  const known = storedAgreedId();
  if (known !== undefined) {
    cached = known;
    void holdIdLock(locks, known);
    return Promise.resolve(known);
  }
  return locks
    .request(agreementLock, { mode: "exclusive" }, async () => {
      const id = (await idInUse(locks)) ?? storedAgreedId() ?? tentative;
      // Storage denied: the lock name alone carries the id to the tabs opened meanwhile.
      if (writeStored(agreedKey, id)) writeStored(storageKey, id);
      // Held before the agreement lock is let go: the next tab under it sees the name.
      await holdIdLock(locks, id);
      return id;
    })
    .then(
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

const idLocks = new Map<string, Promise<void>>();

/**
 * Resolves once this tab holds its id lock (shared, released only when the tab goes): once per
 * page and id, and only where the lock state can be read (else the name would tell nobody).
 */
function holdIdLock(locks: LockManagerLike, id: string): Promise<void> {
  if (typeof locks.query !== "function") return Promise.resolve();
  const held = idLocks.get(id);
  if (held) return held;
  const granting = new Promise<void>((granted) => {
    locks
      .request(`${ID_LOCK_PREFIX}${id}`, { mode: "shared" }, () => {
        granted();
        return new Promise<void>(() => {});
      })
      .catch(() => granted());
  });
  idLocks.set(id, granting);
  return granting;
}

function storedAgreedId(): string | undefined {
  return readStored(agreedKey) || undefined;
}
