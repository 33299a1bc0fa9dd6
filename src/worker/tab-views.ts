import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { Snapshot } from "../core/types.ts";
import { internalsOf } from "../core/internals.ts";
import type { WorkerMessage } from "./protocol.ts";
import { resultInfoOf, snapshotOf } from "./store-asks.ts";

type Sub = { off: () => void; last: Snapshot | undefined; post: () => void };
type Kind = "fetch" | "program";

/** What one tab watches of the worker's store, by key: its subscriptions and its looks. */
export type TabViews = {
  subscribe(store: SharedFetchStoreWithExtras, kind: Kind, key: string, req: unknown): void;
  unsubscribe(key: string): void;
  look(store: SharedFetchStoreWithExtras, kind: Kind, key: string, req: unknown): void;
  unlook(key: string): void;
  /** Ends every subscription and look (the tab left). */
  clear(): void;
};

export function tabViews(post: (message: WorkerMessage) => void): TabViews {
  const subs = new Map<string, Sub>();
  /** The tab's open looks by key: each tells it of a newly recorded result (see look). */
  const looks = new Map<string, () => void>();
  let stopLooks: (() => void) | undefined;
  /** Subscriptions whose snapshot changed, posted once per microtask (listeners run inside Yjs transactions). */
  const dirty = new Set<string>();
  let flushQueued = false;

  const markDirty = (key: string): void => {
    dirty.add(key);
    if (flushQueued) return;
    flushQueued = true;
    queueMicrotask(() => {
      flushQueued = false;
      const keys = [...dirty];
      dirty.clear();
      for (const k of keys) subs.get(k)?.post();
    });
  };

  return {
    subscribe(store, kind, key, req) {
      subs.get(key)?.off();
      const sub: Sub = { off: () => {}, last: undefined, post: () => {} };
      sub.post = () => {
        const snap = snapshotOf(store, kind, req);
        if (snap === sub.last) return;
        sub.last = snap;
        post({ t: "snap", key, snap, ...resultInfoOf(store, kind, req) });
      };
      try {
        const listener = () => markDirty(key);
        sub.off = kind === "fetch" ? store.subscribe(req as never, listener) : store.subscribeProgram(req as never, listener);
        subs.set(key, sub);
        sub.post();
      } catch {
        // A request the store refuses: the tab validates before it subscribes, so this is a broken tab.
      }
    },

    unsubscribe(key) {
      subs.get(key)?.off();
      subs.delete(key);
    },

    /**
     * A tab's disabled query reads what is recorded: as a subscriber, this store would take over
     * work another replica abandoned, which a disabled query never does. The tab is told of each
     * result recorded after (a per-tab replica's disabled query shows one at its next render, and a
     * feed's pages must read one moment of the doc) until it ends the look: the store's changes are
     * watched for it, not the key, and only the open looks are read at each: by their key's record,
     * as reading the request normalises and hashes it, which a thousand looks paid at every change.
     */
    look(store, kind, key, req) {
      const fetch = kind == "fetch";
      const k = fetch ? store.keyOf(req as never) : store.programKeyOf(req as never);
      const { records } = internalsOf(store);
      let told: unknown;
      const tell = (): void => {
        const now = (fetch ? records.results : records.programs).get(k);
        if (told !== (told = now) || !looks.has(key))
          post({ t: "snap", key, snap: snapshotOf(store, kind, req), ...resultInfoOf(store, kind, req) });
      };
      looks.delete(key);
      tell();
      looks.set(key, tell);
      stopLooks ??= store.onInspect(() => looks.forEach((t) => t()));
    },

    unlook(key) {
      looks.delete(key);
    },

    clear() {
      for (const sub of subs.values()) sub.off();
      subs.clear();
      looks.clear();
      stopLooks?.();
      stopLooks = undefined;
    },
  };
}
