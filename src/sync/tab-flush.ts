import { randomId } from "../core/job.ts";
import { requestLock } from "../core/locks.ts";
import { startSettleTimer } from "../core/settle-timer.ts";
import { asBytes, encodeSyncQuery, inboxName, readSyncStatus } from "./tab-protocol.ts";

/** The Web Locks a flush needs: a lock of its own to hold, and the lock state to count tabs by. */
export type FlushLocks = {
  request(name: string, options: { mode?: "exclusive" | "shared" }, callback: () => Promise<void>): Promise<unknown>;
  query?: () => Promise<{ held?: { name?: string }[] }>;
};

/** How long a flush waits for the tabs' answers before it gives up (a frozen or hung tab). */
export const FLUSH_WAIT_MS = 250;

/** Every live connectTabs holds `<prefix><name>#<nonce>` for its life: the browser's lock state counts the tabs on a channel. */
export const TAB_LOCK_PREFIX = "shared-fetch:tabs:";

/**
 * The nonce of a tab lock of the channel `name`, else undefined. A name may hold "#": by prefix
 * alone "app#2"'s tabs read as "app"'s, and they never answer on its channel (a nonce has no "#").
 */
export function tabNonce(lock: string | undefined, name: string): string | undefined {
  const prefix = `${TAB_LOCK_PREFIX}${name}#`;
  return lock?.startsWith(prefix) && !lock.includes("#", prefix.length) ? lock.slice(prefix.length) : undefined;
}

export type TabFlush = {
  /**
   * Calls `done` once every other live tab on the channel has applied what this tab posted before
   * the call, or after FLUSH_WAIT_MS. One sender's messages arrive in order, so a tab that answers
   * a sync query posted after an update has applied that update.
   */
  flush(done: () => void): void;
  /** This tab's lock: let go on pagehide, freeze and destroy, held again once shown or resumed. */
  hold(): void;
  letGo(): void;
  destroy(): void;
};

/**
 * Why a claimant flushes before it lets go of a key's lock: the browser grants the lock to the
 * next tab at once, and that tab's main thread may not have received the result yet (nor even the
 * claim, when it is still booting). It would see the key free and unclaimed and fetch again. The
 * claimant waits until every tab has the result, then lets go.
 */
export function createTabFlush(o: {
  name: string;
  nonce: string;
  locks: FlushLocks | undefined;
  post: (frame: Uint8Array) => void;
}): TabFlush {
  const own = `${TAB_LOCK_PREFIX}${o.name}#${o.nonce}`;
  const open = new Set<() => void>();
  let release: (() => void) | undefined;
  let destroyed = false;

  const hold = (): void => {
    if (release || destroyed || !o.locks) return;
    const held = new Promise<void>((resolve) => (release = resolve));
    requestLock(o.locks, own, { mode: "exclusive" }, () => held).catch(() => {});
  };
  const letGo = (): void => {
    release?.();
    release = undefined;
  };

  /** One round: a query to every tab; `done` once each tab the lock state shows answered (or the bound). */
  const round = (done: () => void): void => {
    const locks = o.locks;
    if (destroyed || !locks || typeof locks.query !== "function" || typeof BroadcastChannel !== "function") return done();
    const id = randomId();
    const box = new BroadcastChannel(inboxName(o.name, id));
    // Counted by who answered, not how many did: a tab of an older version holds no tab lock and
    // names no answerer, and its answer must not stand in for a live tab's that is still coming.
    let expected: string[] | undefined;
    const answered = new Set<string>();
    const finish = (): void => {
      if (!open.delete(finish)) return;
      timer.cancel();
      box.close();
      done();
    };
    open.add(finish);
    // On time only, as the tabs' sync wait: a claimant whose loop was busy may have the answers
    // queued behind its late timer, and letting go then hands the lock to a tab without the result.
    const timer = startSettleTimer(FLUSH_WAIT_MS, finish);
    const check = (): void => {
      if (expected !== undefined && expected.every((nonce) => answered.has(nonce))) finish();
    };
    box.addEventListener("message", (event: MessageEvent) => {
      const data = asBytes(event.data);
      const status = data && readSyncStatus(data);
      if (status?.kind !== "answer" || status.nonce !== id || status.answerer === undefined) return;
      answered.add(status.answerer);
      check();
    });
    locks.query().then(({ held = [] }) => {
      expected = held.flatMap((l) => (l.name === own ? [] : (tabNonce(l.name, o.name) ?? [])));
      check();
    }, finish);
    // Answered on the query's own inbox: this flush reads its own answers alone. Marked "not loaded":
    // no step 2 went before it, so a booting tab must not take it for this tab's whole state.
    o.post(encodeSyncQuery(id, false, true));
  };

  // The flushes of one tick share a round: a page that lets go of a thousand keys at once asks the
  // lock state and the tabs once, after every write of that tick went out.
  let batch: (() => void)[] | undefined;
  const flush = (done: () => void): void => {
    if (batch) return void batch.push(done);
    const dones = (batch = [done]);
    queueMicrotask(() => {
      batch = undefined;
      round(() => dones.forEach((d) => d()));
    });
  };

  return {
    flush,
    hold,
    letGo,
    destroy() {
      destroyed = true;
      letGo();
      for (const finish of [...open]) finish();
    },
  };
}
