import { registerConnector } from "../core/connectors.ts";
import { REPLICA_LOCK_PREFIX } from "../core/locks.ts";
import { removeAwarenessStates } from "y-protocols/awareness";
import { IndexeddbPersistence } from "y-indexeddb";
import type { Doc } from "yjs";
import { createAwareness, retireAwareness } from "./awareness-clock.ts";
import { onOpenFailure } from "./indexeddb-internals.ts";
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
  readFrame,
  readSyncStatus,
  tabChannelName,
  type SyncStatus,
} from "./tab-protocol.ts";
import { markPersisted, mayHavePersisted } from "./persisted-mark.ts";
import { randomId } from "../core/job.ts";

export type TabsOptions = {
  /** Names the BroadcastChannel group and the IndexedDB database: one per doc and trust boundary. */
  name: string;
  /** Persist the doc with y-indexeddb. Default: true when globalThis.indexedDB exists. */
  indexeddb?: boolean;
};

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
  if (typeof opts?.name !== "string" || opts.name === "") {
    throw new TypeError("connectTabs: `name` must be a non-empty string");
  }
  const awareness = createAwareness(doc);
  const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(tabChannelName(opts.name)) : null;
  const useIndexeddb = (opts.indexeddb ?? true) && typeof globalThis.indexedDB !== "undefined";
  const persistence = useIndexeddb ? new IndexeddbPersistence(opts.name, doc) : null;
  const page = globalThis as PageTarget;
  const nonce = randomId();

  let destroyed = false;
  // This doc holds everything persisted: IndexedDB was read, or this browser never wrote through
  // the name (nothing there to wait for: a first visit claims without waiting for the database).
  let loaded = persistence === null || !mayHavePersisted(opts.name);
  let marked = false;
  let resolveLoaded!: () => void;
  const whenLoaded = new Promise<void>((resolve) => (resolveLoaded = resolve));
  if (loaded) resolveLoaded();
  let resolveComplete!: () => void;
  const complete = new Promise<void>((resolve) => (resolveComplete = resolve));
  // In sync once a tab whose state is complete answered (its state, IndexedDB included, has reached
  // us: no need to read the database ourselves), or once IndexedDB is read and no other tab lives
  // (no other replica holds its Web Lock) or none answered soon.
  const whenSynced = Promise.race([complete, Promise.all([whenLoaded, Promise.race([noOtherTabs(), delay(TAB_SYNC_WAIT_MS)])])]).then(
    () => {},
  );
  const unregister = registerConnector(doc, { whenSynced, crossDevice: false });

  const post = (frame: Uint8Array): void => {
    if (channel === null || destroyed) return;
    channel.postMessage(frame);
  };

  // The connection object is the origin of everything applied from the channel: what carries it
  // came from the other tabs and must not be sent back to them.
  const connection: Connection = { whenSynced, awareness, destroy };

  const onMessage = (event: MessageEvent): void => {
    const data = asBytes(event.data);
    if (data === null || destroyed) return;
    try {
      const status = readSyncStatus(data);
      if (status !== null) return onStatus(status);
      const reply = readFrame(data, doc, awareness, connection, nonce);
      if (reply !== null) post(reply);
    } catch (error) {
      // Other tabs are not trusted to be well-formed (and a throwing observer must not kill the channel).
      console.warn("shared-fetch: ignored a tab message that failed to apply", error);
    }
  };

  // A query follows its sender's step 2 and an answer follows the step 2 sent to us (one sender's
  // messages arrive in order): a "loaded" one means that tab's whole state is here.
  const onStatus = ({ kind, nonce: asked, loaded: theirs }: SyncStatus): void => {
    if (kind === "query") post(encodeSyncAnswer(asked, loaded));
    if (theirs && (kind === "query" || asked === nonce || asked === "")) resolveComplete();
  };

  const onUpdate = (update: Uint8Array, origin: unknown): void => {
    // y-indexeddb stores this update: from now on a tab opening must read the database first.
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
    post(encodeSyncStep1(doc, nonce));
    // Push our state unasked too: a tab that is already up to date then answers nothing.
    post(encodeSyncStep2(doc));
    post(encodeQueryAwareness(nonce));
    if (awareness.getLocalState() !== null) post(encodeAwareness(awareness, [awareness.clientID]));
    post(encodeSyncQuery(nonce, loaded));
  };

  const onLoaded = (): void => {
    if (loaded) return;
    loaded = true;
    resolveLoaded();
    // The database's content went out as an update just now: tabs still waiting may stop.
    post(encodeSyncAnswer("", true));
  };

  // pagehide is the last event a closing tab reliably gets; a tab that returns from the
  // back/forward cache gets its presence back and catches up on what it missed.
  let hiddenState: Record<string, unknown> | null = null;
  const onPageHide = (): void => {
    hiddenState = awareness.getLocalState();
    if (hiddenState !== null) removeAwarenessStates(awareness, [awareness.clientID], "pagehide");
  };
  const onPageShow = (event: Event): void => {
    if (!(event as PageTransitionEvent).persisted) return;
    if (hiddenState !== null && awareness.getLocalState() === null) awareness.setLocalState(hiddenState);
    hiddenState = null;
    handshake();
  };

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
    if (channel !== null) {
      channel.removeEventListener("message", onMessage);
      channel.close();
    }
    persistence?.destroy().catch(() => {});
    retireAwareness(awareness);
    unregister();
    resolveLoaded();
    resolveComplete();
  }

  doc.on("update", onUpdate);
  doc.on("destroy", destroy);
  awareness.on("update", onAwareness);
  page.addEventListener?.("pagehide", onPageHide);
  page.addEventListener?.("pageshow", onPageShow);
  channel?.addEventListener("message", onMessage);
  handshake();

  if (persistence !== null) {
    persistence.whenSynced.then(onLoaded, () => {});
    // An IndexedDB that refuses to open (private modes, quota) must not leave whenSynced hanging;
    // such a tab never tells others its state is complete (it is not).
    onOpenFailure(persistence, resolveLoaded);
  }

  return connection;
}

/** How long a new tab waits for the open tabs' answer before it decides on what it has. */
const TAB_SYNC_WAIT_MS = 250;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves at once when Web Locks show no other shared-fetch replica in this browser (a lone tab
 * pays no wait); never resolves when there is one (its answer, or the timeout, decides).
 */
function noOtherTabs(): Promise<void> {
  const locks = (globalThis as { navigator?: { locks?: { query?: () => Promise<{ held?: { name?: string }[] }> } } }).navigator?.locks;
  if (typeof locks?.query !== "function") return new Promise(() => {});
  return locks.query().then(
    (state) => ((state.held ?? []).some((lock) => lock.name?.startsWith(REPLICA_LOCK_PREFIX)) ? new Promise<void>(() => {}) : undefined),
    () => new Promise<void>(() => {}),
  );
}
