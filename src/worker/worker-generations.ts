import type { LockManagerLike } from "./port.ts";
import { STANDBY_LOCK_PREFIX, WORKER_LOCK_PREFIX } from "./protocol.ts";
import { readStored, writeStored } from "../core/local-storage.ts";
import { requestLock } from "../core/locks.ts";

type LockInfo = { name?: string; mode?: string; clientId?: string };

/** Web Locks as a tab has them: `query` tells which worker generations hold their locks. */
export type QueryableLocks = Omit<LockManagerLike, "query"> & {
  query?: () => Promise<{ held?: LockInfo[]; pending?: LockInfo[] }>;
};

/** SharedWorker names: one worker per app name and generation; a dead worker's successor is the next generation. */
export function workerName(name: string, generation: number): string {
  return `shared-fetch:${name}:${generation}`;
}

const generationKey = (name: string) => `shared-fetch:worker-generation:${name}`;

/**
 * Set by a tab that heard its worker of that generation fail to load (its script threw or did not
 * load), cleared by a `ready`: a browser fires a worker's `error` once, at the tabs connected as
 * it fails; a tab that connects later to that worker, alive but broken, hears nothing.
 */
export const failedKey = (name: string, generation: number) => `shared-fetch:worker-failed:${workerName(name, generation)}`;

/** The generation this browser last wrote (0 before any), or undefined without storage to read. */
export function readGeneration(name: string): number | undefined {
  const stored = readStored(generationKey(name));
  if (stored === undefined) return undefined;
  const n = Number(stored);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

export function writeGeneration(name: string, generation: number): void {
  // Without storage a new tab finds the live worker by its lock (liveGeneration).
  if ((readGeneration(name) ?? 0) < generation) writeStored(generationKey(name), String(generation));
}

/**
 * The newest generation whose worker holds its lock now, or -1 (none, or no way to ask). A
 * standby whose predecessor holds no lock is promoted (that worker died) and takes its own
 * worker lock a moment later: its generation is the live one already.
 */
export async function liveGeneration(locks: QueryableLocks, name: string): Promise<number> {
  if (typeof locks.query !== "function") return -1;
  const base = workerName(name, 0).slice(0, -1);
  try {
    const { held = [] } = await locks.query();
    const gens = (prefix: string) =>
      held
        .map((l) => (l.name?.startsWith(prefix + base) ? Number(l.name.slice(prefix.length + base.length)) : NaN))
        .filter(Number.isSafeInteger);
    const live = gens(WORKER_LOCK_PREFIX);
    return Math.max(-1, ...live, ...gens(STANDBY_LOCK_PREFIX).filter((n) => !live.includes(n - 1)));
  } catch {
    return -1;
  }
}

/**
 * The lock that generation's worker holds now, as a tab can watch it before the worker names it:
 * its lifetime lock, or a promoted standby's (held from before its promotion to its death).
 * `heard`: a worker read the hello of the tab whose lock is `tabLock` (it queues on that lock as
 * it reads it, to hear the tab's death). `behind`: that worker waits for the lifetime lock another
 * holds. Two live workers share a name only if their scripts' URLs differ: another build's, after
 * a deploy. Told apart by client: the holder of the lock may be the tab's own worker, only slow to
 * answer, with another build's waiting behind it.
 */
export async function workerLocks(
  locks: QueryableLocks,
  name: string,
  generation: number,
  tabLock: string,
): Promise<{ lock?: string; heard: boolean; behind: boolean }> {
  const { held = [], pending = [] } = (await locks.query?.().catch(() => undefined)) ?? {};
  const worker = workerName(name, generation);
  const life = WORKER_LOCK_PREFIX + worker;
  const holder = held.find((l) => l.name === life || l.name === STANDBY_LOCK_PREFIX + worker);
  const readers = pending.filter((l) => l.name === tabLock).map((l) => l.clientId);
  return {
    lock: holder?.name,
    heard: readers.length > 0,
    behind:
      holder?.name === life &&
      !readers.includes(holder.clientId) &&
      pending.some((l) => l.name === life && l.mode === "exclusive" && readers.includes(l.clientId)),
  };
}

/**
 * The generation a tab back from the back/forward cache turns to; `lock`: the one its worker
 * named in `ready`, if that worker answered before the page was hidden.
 */
export async function resumedGeneration(locks: QueryableLocks, name: string, generation: number, lock?: string): Promise<number> {
  // The worker may have died while the page was frozen: a free lock says so at once. Held: a
  // worker of that name lives, maybe not the one the page knew (it retired meanwhile, and another
  // tab started that name again): a new port reaches whichever lives.
  // Refused (a page torn down, a broken manager): cannot tell, as if the worker had named no lock.
  const taken =
    lock && (await requestLock(locks, lock, { mode: "exclusive", ifAvailable: true }, (l) => l === null).catch(() => undefined));
  if (taken) return generation;
  // Takeovers may have followed each other while the page was in the cache: the live generation
  // may be later than the next one, whose worker is dead too.
  const held = await liveGeneration(locks, name);
  // A worker not known dead (it had not answered yet, or the check was refused): while it (or a
  // later one) holds its lock, the tab turns to that one. The next generation would be a second
  // live worker (or the other tabs' standby, promoted while the live worker lives).
  return taken !== false && held >= generation ? held : Math.max(generation + 1, readGeneration(name) ?? 0, held);
}
