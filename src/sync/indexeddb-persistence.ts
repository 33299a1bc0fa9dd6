import * as idb from "lib0/indexeddb";
import * as Y from "yjs";
import type { DocPersistence } from "./doc-persistence.ts";
import { writerLock, type WriterLocks } from "./idb-writer-lock.ts";

const UPDATES = "updates";
/** y-indexeddb's store for metadata beside the updates; deleted with them (clearTabsStorage). */
const CUSTOM = "custom";
/**
 * The database holds records other devices wrote, on their clocks (see Retention.ownClock). Kept
 * here rather than only in localStorage: a SharedWorker has none, and a browser's may refuse it.
 */
const DEVICES_MARK = "shared-fetch:devices";
/** As y-indexeddb: past this many stored updates, a second after the last one they are merged. */
const MERGE_AT = 500;
/**
 * Or once this tab has stored more bytes than the doc's state since its last merge (and more than
 * this floor): 500 rewrites of a result are 500 copies of it, so three tabs polling 1 KiB results
 * reached 57 times the state between merges (each tab then storing every update it heard).
 */
const MERGE_FLOOR_BYTES = 64 * 1024;
const MERGE_AFTER_MS = 1000;
/** An open that answers neither way is waited for this long (the store's own cap on a sync). */
export const IDB_OPEN_WAIT_MS = 2000;

/** One update into the auto-keyed store (lib0's `addAutoKey` types its item narrower than IndexedDB takes). */
const addUpdate = (store: IDBObjectStore, update: Uint8Array): Promise<unknown> => idb.rtop(store.add(update));

/**
 * A Y.Doc persisted in IndexedDB, in y-indexeddb's format (database `name`, object stores
 * `updates` (auto-increment keys, one Yjs update each) and `custom`), so what earlier versions
 * stored is read back and y-indexeddb can read what this writes.
 *
 * Written here rather than used from y-indexeddb because storage fails in browsers, and there it
 * broke the tabs: a refused open or write left an unhandled rejection per update; an open that
 * never answers (a blocked upgrade, a Safari hang) left the load pending for ever; and a connection
 * the browser closed (site data cleared, the database deleted by another page) made its update
 * handler throw into every writer's transaction, starving the handlers after it — the tabs' sync
 * among them. Here any failure stops persisting, with one warning, and the doc and the tabs go on;
 * an open still pending after IDB_OPEN_WAIT_MS lets the load go on without it.
 *
 * `onGone` is called when the database goes away under this doc (another page deletes or upgrades
 * it, e.g. clearTabsStorage at logout; the browser closes it, e.g. site data cleared): what the
 * caller keeps of the doc elsewhere must go with it, or the next login reads it back.
 *
 * With `locks`, only the tab that holds the name's writer lock stores updates: every tab's doc
 * hears every update (its own, the channel's, each tab's devices'), so K tabs storing what they
 * hear wrote K copies of each. The others read the database at their load and store nothing, and
 * one granted the lock after missing updates merges at once: its whole state goes in, so what
 * the writer before it never got to store (it crashed, closed before its write committed, or its
 * storage failed, which lets the lock go) reaches the database from any tab that holds it. Without
 * Web Locks each tab stores everything, as before.
 */
export function persistDoc(name: string, doc: Y.Doc, onGone?: () => void, locks?: WriterLocks): DocPersistence {
  let db: IDBDatabase | null = null;
  let stopped = false;
  let nextKey = 0; // the first key not yet read into the doc
  let stored = 0; // updates in the store, as last counted
  let written = 0; // bytes this tab stored since its last merge
  let mergeTimer: ReturnType<typeof setTimeout> | undefined;
  let waiting: Uint8Array[] = [];
  let waitingBytes = 0;
  let foldedBytes = 0; // the doc's state at the last fold (or as read at the load)
  let writing = false;
  let loaded = false;
  let writer = locks === undefined;
  let missed = false; // an update heard while another tab stored them
  // The doc's state vector before this tab's first own update (not one it heard) since it last
  // stored them, while another tab stores: the writer hears them over the channel, and one that
  // closed or crashed first (a window closing all its tabs) stored them nowhere. The next write
  // takes what the doc holds past it: the one this tab makes as it leaves (letGo, destroy).
  let owed: Uint8Array | undefined;
  let away = false; // let go until hold()
  // Asked for once the database is read (a tab granted it stores from then on), unless let go.
  const lock = locks && writerLock(locks, name, () => stopped || storeFromNow());
  let others = true; // the database's mark, maybe until it is read
  let marking = false; // this tab met other devices: the mark goes in
  let settle!: (loaded: boolean) => void;
  const whenLoaded = new Promise<boolean>((resolve) => (settle = resolve));

  const stop = (): void => {
    stopped = true;
    release();
    clearTimeout(mergeTimer);
    clearTimeout(openTimer);
    doc.off("update", onUpdate);
    doc.off("destroy", destroy);
    db?.close();
    settle(false);
  };
  const fail = (what: string, error?: unknown): void => {
    if (stopped) return;
    stop();
    console.warn(`shared-fetch: IndexedDB "${name}" ${what}; this doc is no longer persisted here (tabs still sync)`, error ?? "");
  };

  const gone = (what: string): void => {
    if (stopped) return;
    fail(what);
    onGone?.();
  };

  /** Reads the updates stored since the last read into the doc (other tabs write the same database). */
  const readNew = async (store: IDBObjectStore): Promise<void> => {
    const updates = (await idb.getAll(store, idb.createIDBKeyRangeLowerBound(nextKey, false))) as Uint8Array[];
    if (stopped) return;
    // Taken for the state's size until a fold or a merge measures it: more than the doc where the
    // records are rewrites of one value, but held in memory at once here already, and exact only
    // by encoding the whole doc at every load.
    let read = 0;
    Y.transact(doc, () => updates.forEach((update) => ((read += update.byteLength), Y.applyUpdate(doc, update))), persistence, false);
    foldedBytes = Math.max(foldedBytes, read);
    nextKey = ((await idb.getLastKey(store)) as number) + 1;
    stored = await idb.count(store);
  };

  const load = async (): Promise<void> => {
    // A database y-indexeddb made before its `custom` store (its versions before 9) has none, and
    // an open without a version adds none: its updates load as ever, its mark unknown (yes).
    const [store, custom] = idb.transact(db!, hasCustom() ? [UPDATES, CUSTOM] : [UPDATES]);
    // What the doc holds already (made before the open answered) goes in first, as y-indexeddb
    // does, where each tab stores (its failure fails the reads below). Behind the writer lock that
    // was a state-sized record per tab opened: the merge at its grant writes it instead (the first
    // tab of a first visit is granted at once), and a tab never granted sent it over the channel
    // (its handshake's state, its updates) to the writer, which stores what it hears.
    if (writer) void addUpdate(store!, Y.encodeStateAsUpdate(doc)).catch(() => {});
    else missed ||= doc.store.clients.size > 0;
    // Read before the records it speaks for are applied: retention dates keys as they arrive. A
    // device met while it is read marks it too (`marking` looked at once the read answers).
    others = !custom || (await idb.get(custom, DEVICES_MARK)) !== undefined || marking;
    await readNew(store!);
    if (stopped) return;
    loaded = true;
    writeMark();
    settle(true);
    take();
  };

  function take(): void {
    if (!away && loaded && !stopped) lock?.take();
  }

  function storeFromNow(): void {
    writer = true;
    if (!missed) return;
    missed = false;
    void merge().catch((error: unknown) => fail("could not merge its updates", error));
  }

  function release(): void {
    writer = !locks;
    lock?.release();
    // A merge due is left to the next writer, which merges at its grant: run here, it wrote the
    // whole doc a second time, beside that one (a page back from the back/forward cache).
    if (locks) {
      clearTimeout(mergeTimer);
      mergeTimer = undefined;
    }
  }

  const merge = async (): Promise<void> => {
    const [store] = idb.transact(db!, [UPDATES]);
    await readNew(store!);
    // Not given up when the doc was destroyed meanwhile (the page closed at the grant): what only
    // this tab holds goes in all the same, in the read's transaction, which the close lets finish.
    // Its state is the size a fold waits on: the records just read, rewrites of one value among
    // them, may sum to many times the doc.
    const state = Y.encodeStateAsUpdate(doc);
    foldedBytes = state.byteLength;
    written = 0;
    await addUpdate(store!, state);
    await idb.del(store!, idb.createIDBKeyRangeUpperBound(nextKey, true));
    stored = await idb.count(store!);
  };

  function onUpdate(update: Uint8Array, origin: unknown, _: Y.Doc, tr: Y.Transaction): void {
    if (stopped || origin === persistence) return;
    // Before the open answered too: what this tab writes then (its first claims) is owed as well.
    if (!writer) return void ((missed = true), tr.local && (owed ??= Y.encodeStateVector(tr.beforeState)));
    if (db === null) return;
    // Behind a write that does not end (a storage hang), every version of every record would
    // wait here; the doc's state holds them all in the size of the latest. Only once what waits
    // is twice that state's last size: a burst of new records (a dashboard's thousand results)
    // folds nothing away, and folding it every hundred updates re-encoded the whole doc each time.
    waitingBytes += update.byteLength;
    if (waiting.push(update) > 99 && waitingBytes > 2 * foldedBytes) {
      const state = Y.encodeStateAsUpdate(doc);
      waiting = [state];
      waitingBytes = foldedBytes = state.byteLength;
    }
    if (!writing) write();
  }

  /**
   * One write at a time: the updates that come while one is under way go in the next, merged. An
   * update is durable once its write commits, and a write queued behind another commits no
   * sooner than that one (a crash aborts both), so waiting in memory meanwhile loses nothing; a
   * write per update queued a transaction per result (a dashboard's thousand), which IndexedDB
   * then ran one by one. Never throws: a handler of the doc's updates throws into the writer's
   * transaction.
   */
  function write(): void {
    if (owed) waiting.push(Y.encodeStateAsUpdate(doc, owed));
    owed = undefined;
    if (db === null || stopped || waiting.length === 0) return;
    const updates = waiting;
    waiting = [];
    waitingBytes = 0;
    writing = true;
    try {
      const [store] = idb.transact(db, [UPDATES]);
      const update = updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates);
      written += update.byteLength;
      addUpdate(store!, update).then(
        () => {
          writing = false;
          write();
        },
        (error: unknown) => fail("refused a write", error),
      );
    } catch (error) {
      return fail("refused a write", error);
    }
    // Put off by each write, a merge never came while updates never paused for a second (the
    // heartbeats of requests in flight in a few tabs): past twice the count, one due is kept.
    const due = Math.max(++stored / MERGE_AT, written / Math.max(foldedBytes, MERGE_FLOOR_BYTES));
    if (due < 1 || (due > 2 && mergeTimer !== undefined)) return;
    clearTimeout(mergeTimer);
    // An async function: whatever it throws, even at once, comes back as a rejection.
    mergeTimer = setTimeout(() => {
      mergeTimer = undefined;
      void merge().catch((error: unknown) => fail("could not merge its updates", error));
    }, MERGE_AFTER_MS);
  }

  const hasCustom = () => db!.objectStoreNames.contains(CUSTOM);
  function writeMark(): void {
    if (!marking || !loaded || stopped || !hasCustom()) return;
    // A transaction on a closing database throws at once: a rejection too, here.
    Promise.resolve()
      .then(() => idb.put(idb.transact(db!, [CUSTOM])[0]!, 1, DEVICES_MARK))
      .catch((error: unknown) => fail("refused a write", error));
  }

  const markOthersWrote = (): void => {
    if (marking) return;
    marking = others = true;
    writeMark();
  };

  function destroy(): Promise<void> {
    // What waits goes in before the database closes (a close lets the writes made before it finish).
    write();
    if (!stopped) stop();
    return Promise.resolve();
  }

  const letGo = (): void => {
    write();
    away = true;
    release();
  };
  const hold = (): void => {
    away = false;
    take();
  };
  const persistence: DocPersistence = { whenLoaded, flush: write, letGo, hold, othersWrote: () => others, markOthersWrote, destroy };
  // Not given up on: a slow open (many tabs booting on few cores) still reads and persists later.
  const openTimer = setTimeout(() => {
    if (stopped) return;
    settle(false);
    console.warn(
      `shared-fetch: IndexedDB "${name}" has not opened within ${IDB_OPEN_WAIT_MS} ms; going on without what it stores until it does`,
    );
  }, IDB_OPEN_WAIT_MS);
  doc.on("update", onUpdate);
  doc.on("destroy", destroy);
  idb
    .openDB(name, (created) => idb.createStores(created, [[UPDATES, { autoIncrement: true }], [CUSTOM]]))
    .then(
      (opened) => {
        if (stopped) return opened.close(); // destroyed before it answered
        clearTimeout(openTimer);
        db = opened;
        // The browser closed it (site data cleared, storage lost), or another page deletes or upgrades it.
        opened.onclose = () => gone("was closed by the browser");
        opened.onversionchange = () => gone("is being deleted or upgraded by another page");
        return load().catch((error: unknown) => fail("could not be read", error));
      },
      (error: unknown) => fail("could not be opened", error),
    );
  return persistence;
}
