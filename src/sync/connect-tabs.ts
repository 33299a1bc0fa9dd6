import { connectorsOf, onConnector, registerConnector, type ConnectorInfo } from "../core/connectors.ts";
import { unrefTimer } from "../core/unref-timer.ts";
import { removeAwarenessStates } from "y-protocols/awareness";
import type { Doc } from "yjs";
import { createAwareness, retireAwareness } from "./awareness-clock.ts";
import { hasIndexedDB, type DocPersistence } from "./doc-persistence.ts";
import { persistDoc } from "./indexeddb-persistence.ts";
import type { Connection } from "./connection.ts";
import {
  asBytes,
  encodeAwareness,
  encodeQueryAwareness,
  encodeSyncAnswer,
  encodeSyncQuery,
  encodeSyncStep1,
  encodeSyncStep2,
  encodeUpdate,
  inboxName,
  readFrame,
  readSyncStatus,
  tabChannelName,
  type SyncStatus,
  type TabReply,
} from "./tab-protocol.ts";
import { keepSnapshot, loadSnapshot } from "./local-snapshot.ts";
import { markOthersWrite, markPersisted, mayHavePersisted, othersMayHaveWritten, removeSnapshot } from "./persisted-mark.ts";
import { closeReplyChannel, postReply, type ReplyChannels } from "./reply-channels.ts";
import { createTabFlush, type FlushLocks } from "./tab-flush.ts";
import { noOtherTabs, onTime, TAB_SYNC_WAIT_MS } from "./tab-sync-wait.ts";
import { checkTabsOptions, navigatorLocks, type PageLocks, type TabsOptions } from "./tabs-options.ts";
import { randomId } from "../core/job.ts";

/**
 * What the SharedWorker's standby reads of its connectTabs (`indexeddb: false`), beside the public
 * Connection: whether the doc holds everything persisted, as it answers tabs (a tab that read
 * IndexedDB sent its state), and a way to say so from now on once it read the database itself.
 * `persistedBy`: the database it persists to once promoted, whose devices' mark retention reads
 * (without it the promoted worker dated every key it loaded at the load, for its whole life).
 */
export type TabsConnection = Connection & { vouched(): boolean; vouch(): void; persistedBy(persistence: DocPersistence): void };

type AwarenessChange = { added: number[]; updated: number[]; removed: number[] };
type PageTarget = {
  addEventListener?: (type: string, listener: (event: Event) => void) => void;
  removeEventListener?: (type: string, listener: (event: Event) => void) => void;
};

/**
 * Syncs `doc` with the other same-origin tabs (BroadcastChannel, y-protocols sync + awareness) and
 * persists it in IndexedDB, so a tab opened after a crash sees what the crashed tab wrote.
 */
export function connectTabs(doc: Doc, opts: TabsOptions): Connection {
  const snapshotBytes = checkTabsOptions(doc, opts);
  const locks = opts.locks === null ? undefined : ((opts.locks ?? navigatorLocks()) as PageLocks | undefined);
  const pageLocks = typeof locks?.request === "function" ? (locks as FlushLocks) : undefined;
  const awareness = createAwareness(doc);
  const nonce = randomId();
  // Node's channels are unref'd, as a browser's never hold a page open: a script (SSR, a test)
  // ends when its own work does, not at destroy().
  const channel = typeof BroadcastChannel === "function" ? unrefTimer(new BroadcastChannel(tabChannelName(opts.name))) : null;
  // Opened before the handshake asks anything: the replies meant for this tab alone arrive here.
  const inbox = channel === null ? null : unrefTimer(new BroadcastChannel(inboxName(opts.name, nonce)));
  const useIndexeddb = (opts.indexeddb ?? true) && hasIndexedDB();
  // The copy goes in before anything listens: it is this doc's own past, not news for other tabs.
  // Only beside the mark: clearTabsStorage removes both, so a copy without it was written after a
  // logout (a tab still open then) and holds the previous user's doc.
  const keepsSnapshot = useIndexeddb && snapshotBytes > 0;
  if (keepsSnapshot && mayHavePersisted(opts.name)) loadSnapshot(doc, opts.name);
  // An app that turned the copy off (snapshotBytes: 0) keeps none: not even an earlier visit's.
  else if (!keepsSnapshot) removeSnapshot(opts.name);
  // One tab of the browser stores what all of them hear, where Web Locks tell which.
  let persistence = useIndexeddb ? persistDoc(opts.name, doc, onGone, pageLocks) : null;
  const page = globalThis as PageTarget;
  const pageDocument = (globalThis as { document?: PageTarget }).document;

  let destroyed = false;
  // This doc holds everything persisted: IndexedDB was read, or this browser never wrote through
  // the name (nothing there to wait for: a first visit claims without waiting for the database).
  const unpersisted = !(opts.persisted ?? mayHavePersisted(opts.name));
  let loaded = persistence === null || unpersisted;
  // Whether this tab may tell others it holds everything persisted. One that reads no IndexedDB
  // where there is one (a SharedWorker's standby, an app's opt-out) holds it only once a tab that
  // does sent its state (answering so before, its empty doc was taken for all there is), or where
  // nothing was persisted: what is persisted later was written by tabs it hears.
  let vouches = useIndexeddb || !hasIndexedDB() || unpersisted;
  let marked = false;
  let resolveLoaded!: () => void;
  const whenLoaded = new Promise<void>((resolve) => (resolveLoaded = resolve));
  if (loaded) resolveLoaded();
  let resolveComplete!: () => void;
  const complete = new Promise<void>((resolve) => (resolveComplete = resolve));
  const post = (frame: Uint8Array | null): void => {
    if (frame === null || channel === null || destroyed) return;
    channel.postMessage(frame);
  };
  const tabFlush = createTabFlush({ name: opts.name, nonce, locks: pageLocks, post });
  // Asked for before the lock state is: of two tabs opened at once, whichever query comes second
  // sees the first tab's lock (both queries served before both requests, each took itself for alone).
  tabFlush.hold();
  // In sync once a tab whose state is complete answered (its state, IndexedDB included, has reached
  // us: no need to read the database ourselves), or once IndexedDB is read and no other tab lives
  // (no other tab of the name holds its Web Lock) or none answered soon.
  const whenSynced = Promise.race([
    complete,
    Promise.all([whenLoaded, Promise.race([noOtherTabs(pageLocks, opts.name, nonce), onTime(TAB_SYNC_WAIT_MS)])]),
  ]).then(() => {});
  // Kept beside the doc for every later tab of the name: the records other devices write reach
  // them through this tab's database and channel, though their own doc connects no device. In the
  // database too, where a worker (no localStorage) reads it, and a refused localStorage loses nothing.
  const marks = (c: ConnectorInfo) => c.crossDevice && (markOthersWrite(opts.name), persistence?.markOthersWrote());
  connectorsOf(doc).forEach(marks);
  const unwatch = onConnector(doc, marks);
  const unregister = registerConnector(doc, {
    whenSynced,
    crossDevice: false,
    // Either mark says yes; the database's, once read, where localStorage has none or says no.
    othersWrote: () => {
      const stored = othersMayHaveWritten(opts.name);
      return stored || (persistence?.othersWrote() ?? stored ?? true);
    },
    flush: tabFlush.flush,
    scope: `tabs:${opts.name}`,
    awareness,
  });
  const replyChannels: ReplyChannels = new Map();
  const send = ({ frame, inbox: to }: TabReply, last = false): void => {
    if (to === undefined) return post(frame);
    if (channel === null || destroyed) return;
    postReply(replyChannels, opts.name, to, frame, last);
  };

  // The connection object is the origin of everything applied from the channel: what carries it
  // came from the other tabs and must not be sent back to them.
  const connection: TabsConnection = {
    whenSynced,
    awareness,
    destroy,
    vouched: () => loaded && vouches,
    // Tabs that asked before, told "not loaded", read their own database meanwhile: none is told
    // again (the worker's next standby, the one that matters, asks only once its tabs are served).
    vouch: () => void (vouches = true),
    // A device that joined before it is marked there now.
    persistedBy: (p) => void ((persistence = p), connectorsOf(doc).forEach(marks)),
  };
  const snapshot = keepsSnapshot ? keepSnapshot(doc, opts.name, snapshotBytes, [connection, persistence]) : null;

  const onMessage = (event: MessageEvent): void => {
    const data = asBytes(event.data);
    if (data === null || destroyed) return;
    try {
      const status = readSyncStatus(data);
      if (status !== null) return onStatus(status);
      const reply = readFrame(data, doc, awareness, connection, nonce);
      if (reply !== null) send(reply);
    } catch (error) {
      // Other tabs are not trusted to be well-formed (and a throwing observer must not kill the channel).
      console.warn("shared-fetch: ignored a tab message that failed to apply", error);
    }
  };

  // A query follows its sender's step 2 and an answer follows the step 2 sent to us (one sender's
  // messages arrive in order): a "loaded" one means that tab's whole state is here.
  const onStatus = ({ kind, nonce: asked, loaded: theirs, inbox: toInbox }: SyncStatus): void => {
    // The query is the asker's last handshake frame: its reply channel has served.
    if (kind === "query") send({ frame: encodeSyncAnswer(asked, loaded && vouches, nonce), inbox: toInbox ? asked : undefined }, true);
    if (theirs && (kind === "query" || asked === nonce || asked === "")) {
      vouches = true;
      resolveComplete();
    }
  };

  const onUpdate = (update: Uint8Array, origin: unknown): void => {
    // IndexedDB stores this update: from now on a tab opening must read the database first.
    if (!marked && persistence !== null) {
      marked = true;
      markPersisted(opts.name);
    }
    if (origin !== connection) post(encodeUpdate(update));
  };

  const onAwareness = ({ added, updated, removed }: AwarenessChange, origin: unknown): void => {
    if (origin !== connection) post(encodeAwareness(awareness, [...added, ...updated, ...removed]));
  };

  const handshake = (): void => {
    const toInbox = inbox !== null;
    post(encodeSyncStep1(doc, nonce, toInbox));
    // Our state unasked too, as tabs already open ask nothing of us; none while we hold nothing.
    post(encodeSyncStep2(doc));
    post(encodeQueryAwareness(nonce, toInbox));
    if (awareness.getLocalState() !== null) post(encodeAwareness(awareness, [awareness.clientID]));
    post(encodeSyncQuery(nonce, loaded && vouches, toInbox));
  };

  const onLoaded = (): void => {
    if (loaded) return;
    loaded = true;
    resolveLoaded();
    // The database's content went out as an update just now: tabs still waiting may stop.
    post(encodeSyncAnswer("", true));
  };

  // A page the browser freezes (a background tab) runs nothing until resumed, as in the back/forward
  // cache: holding the writer lock, or granted it meanwhile, it left every other tab storing nothing;
  // holding its tab lock, it was counted as a tab that answers, and every tab opened beside it, or
  // flushing before it let a key go, waited out the bound for an answer that could not come.
  const onFreeze = (): void => {
    tabFlush.letGo();
    persistence?.letGo();
  };
  const onResume = (): void => {
    tabFlush.hold();
    persistence?.hold();
  };
  // pagehide is the last event a closing tab reliably gets; a tab that returns from the
  // back/forward cache gets its presence back and catches up on what it missed.
  let hiddenState: Record<string, unknown> | null = null;
  const onPageHide = (): void => {
    onFreeze();
    snapshot?.flush();
    hiddenState = awareness.getLocalState();
    if (hiddenState !== null) removeAwarenessStates(awareness, [awareness.clientID], "pagehide");
  };
  const onPageShow = (event: Event): void => {
    if (!(event as PageTransitionEvent).persisted) return;
    onResume();
    if (hiddenState !== null && awareness.getLocalState() === null) awareness.setLocalState(hiddenState);
    hiddenState = null;
    handshake();
  };
  // The database went away under this tab (a logout in another tab, site data cleared): neither
  // the copy nor the mark may go on, or the next login on this browser reads this doc back.
  function onGone(): void {
    marked = true; // nothing is persisted here any more: the mark stays off
    snapshot?.drop();
  }

  function destroy(): void {
    if (destroyed) return;
    // Say goodbye while the channel is still open, without touching the awareness object itself.
    if (awareness.getLocalState() !== null) post(encodeAwareness(awareness, [awareness.clientID], new Map()));
    destroyed = true;
    doc.off("destroy", destroy);
    doc.off("update", onUpdate);
    awareness.off("update", onAwareness);
    page.removeEventListener?.("pagehide", onPageHide);
    page.removeEventListener?.("pageshow", onPageShow);
    pageDocument?.removeEventListener?.("freeze", onFreeze);
    pageDocument?.removeEventListener?.("resume", onResume);
    for (const open of [channel, inbox]) {
      open?.removeEventListener("message", onMessage);
      open?.close();
    }
    for (const to of [...replyChannels.keys()]) closeReplyChannel(replyChannels, to);
    persistence?.destroy().catch(() => {});
    snapshot?.destroy();
    tabFlush.destroy();
    retireAwareness(awareness);
    unregister();
    unwatch();
    resolveLoaded();
    resolveComplete();
  }

  doc.on("update", onUpdate);
  doc.on("destroy", destroy);
  awareness.on("update", onAwareness);
  page.addEventListener?.("pagehide", onPageHide);
  page.addEventListener?.("pageshow", onPageShow);
  pageDocument?.addEventListener?.("freeze", onFreeze);
  pageDocument?.addEventListener?.("resume", onResume);
  channel?.addEventListener("message", onMessage);
  inbox?.addEventListener("message", onMessage);
  handshake();

  // An IndexedDB that fails (refused, hung, closed under us) must not leave whenSynced hanging;
  // such a tab never tells others its state is complete (it is not).
  void persistence?.whenLoaded.then((read) => (read ? onLoaded() : resolveLoaded()));

  return connection;
}
