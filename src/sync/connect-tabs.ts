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
  encodeSyncStep1,
  encodeSyncStep2,
  encodeUpdate,
  messageSync,
  readFrame,
  tabChannelName,
} from "./tab-protocol.ts";

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

  let destroyed = false;
  let resolveLoaded!: () => void;
  const loaded = new Promise<void>((resolve) => (resolveLoaded = resolve));
  let resolveAnswered!: () => void;
  const answered = new Promise<void>((resolve) => (resolveAnswered = resolve));
  // In sync once IndexedDB is read and the tabs already open have answered our handshake — or
  // when there is no other tab to answer (no other replica holds its Web Lock) or none answers soon.
  const whenSynced = Promise.all([loaded, Promise.race([answered, noOtherTabs(), delay(TAB_SYNC_WAIT_MS)])]).then(() => {});
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
      if (data[0] === messageSync) resolveAnswered();
      const reply = readFrame(data, doc, awareness, connection);
      if (reply !== null) post(reply);
    } catch (error) {
      // Other tabs are not trusted to be well-formed (and a throwing observer must not kill the channel).
      console.warn("shared-fetch: ignored a tab message that failed to apply", error);
    }
  };

  const onUpdate = (update: Uint8Array, origin: unknown): void => {
    if (origin !== connection) post(encodeUpdate(update));
  };

  const onAwareness = ({ added, updated, removed }: AwarenessChange, origin: unknown): void => {
    if (origin !== connection) post(encodeAwareness(awareness, [...added, ...updated, ...removed]));
  };

  const handshake = (): void => {
    post(encodeSyncStep1(doc));
    // Push our state unasked too: a tab that is already up to date then answers nothing.
    post(encodeSyncStep2(doc));
    post(encodeQueryAwareness());
    if (awareness.getLocalState() !== null) post(encodeAwareness(awareness, [awareness.clientID]));
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
    resolveAnswered();
  }

  doc.on("update", onUpdate);
  doc.on("destroy", destroy);
  awareness.on("update", onAwareness);
  page.addEventListener?.("pagehide", onPageHide);
  page.addEventListener?.("pageshow", onPageShow);
  channel?.addEventListener("message", onMessage);
  handshake();

  if (persistence === null) resolveLoaded();
  else {
    void persistence.whenSynced.then(() => resolveLoaded());
    // An IndexedDB that refuses to open (private modes, quota) must not leave whenSynced hanging.
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
