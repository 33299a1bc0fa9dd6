import type { PortLike } from "./port.ts";
import { PROTOCOL, type BrowserConfig, type TabMessage } from "./protocol.ts";
import type { RemoteStore } from "./remote-store.ts";
import { workerName, type QueryableLocks } from "./worker-generations.ts";
import { markPersisted, mayHavePersisted } from "../sync/persisted-mark.ts";

/** What `new SharedWorker(...)` gives: its port (and error events). */
export type SharedWorkerLike = {
  port: PortLike;
  addEventListener?(type: "error", listener: (event: Event) => void): void;
};

/** How a tab starts and reaches the browser's replica worker (see WorkerLink). */
export type WorkerLinkOptions = {
  store: RemoteStore;
  locks: QueryableLocks;
  config: BrowserConfig;
  tabId: string;
  start: (name: string) => SharedWorkerLike;
  /** Settles before the first hello (the browser id agreement). */
  before?: Promise<unknown>;
  /** Start the next generation's worker in advance (see `standby`). */
  standby?: boolean;
  /** How long a worker may take to answer a hello before the tab gives up on it (WORKER_READY_MS). */
  timeoutMs?: number;
  /**
   * The worker failed (did not start or load, refused, or never answered): the tab falls back, saying
   * why; `noLocks`: Web Locks refused the tab, whose replica then runs without them.
   */
  onFail?: (reason: string, noLocks?: boolean) => void;
  /** A worker answered that it reaches no other device. */
  onAlone?: () => void;
};

/**
 * A page's id, by its Web Locks (its first store's tab id): the worker tells a store the page makes
 * again (a logout, then a new connectBrowser), whose port is not the first, that its page started
 * the worker, so it starts no standby in the renderer the live worker dies with. A page that
 * remembered this itself took a later worker of that name (after a retire) for its own too.
 */
export const pages = new WeakMap<object, string>();

/** Why a worker failed to start, from its error event. */
export function errorText(event: Event): string {
  const message = (event as ErrorEvent).message;
  return `the SharedWorker failed to load${message ? `: ${message}` : " (its script did not load or threw)"}`;
}

/** Starts the worker of `generation` (undefined: it could not be, said on the console). */
export function spawn(o: WorkerLinkOptions, generation: number): SharedWorkerLike | undefined {
  try {
    return o.start(workerName(o.config.name, generation));
  } catch (error) {
    console.error("shared-fetch: could not start the replica worker", error);
    return undefined;
  }
}

/** The tab's hello; `lock`: the tab's own, held for its life. */
export function helloOf(o: WorkerLinkOptions, lock: string): TabMessage {
  // A worker has no localStorage: the tab reads the mark for it, at every hello (a later worker
  // may find what an earlier one persisted), and sets it, since the worker persists from now on.
  const { name } = o.config;
  const persisted = mayHavePersisted(name);
  if (!persisted) markPersisted(name);
  return {
    t: "hello",
    v: PROTOCOL,
    tab: o.tabId,
    lock,
    config: { ...o.config, persisted },
    resend: o.store.openAsks(),
    page: pages.get(o.locks),
  };
}
