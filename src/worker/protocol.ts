/**
 * The messages between a tab and the browser's replica in a SharedWorker, over one MessagePort
 * per tab. Requests travel here with their headers and bodies (the worker must send them), never
 * through the doc (invariant 13). Each side validates what it receives: a malformed message is
 * dropped and counted, never thrown (the other side may be an older or a broken build).
 */
import type { StoreEvent } from "../core/events.ts";
import type { Inspection } from "../core/inspector.ts";
import type { MalformedRecord } from "../core/lanes.ts";
import type { ClaimRecord } from "../core/records.ts";
import { isPlainObject } from "../core/request.ts";
import type { Snapshot } from "../core/types.ts";
import type { WireRetry } from "./retry-wire.ts";

/**
 * Version of this protocol: a tab and a worker of different builds refuse each other clearly (the
 * tab then falls back to a replica of its own). 2: batches, the standby, retry questions, simulations.
 */
export const PROTOCOL = 2;

/** Every worker's lifetime lock starts with this; the rest is its SharedWorker name. */
export const WORKER_LOCK_PREFIX = "shared-fetch:worker:";

/**
 * A standby worker holds this lock (the rest is its SharedWorker name) for its life: the tabs
 * that would turn to it watch it, so a standby that died with its renderer is not turned to.
 */
export const STANDBY_LOCK_PREFIX = "shared-fetch:standby:";

export type WorkKind = "fetch" | "program";
export type Mode = "ensure" | "refetch";

/** What the tab tells the worker about the replica it wants (the worker file may override peers). */
export type BrowserConfig = {
  /** Names the doc's IndexedDB database, BroadcastChannel and Web Locks: one per doc and trust boundary. */
  name: string;
  identity: string;
  /** Shared by every tab of the browser (localStorage): claims name it, so a dead worker is found by its lock. */
  browserId?: string;
  /**
   * Whether IndexedDB may already hold the doc, as the tab's localStorage mark says (a worker has
   * no localStorage); false lets a worker's first replica claim before it has read the database.
   */
  persisted?: boolean;
  leaseMs?: number;
  programLeaseMs?: number;
  /** A y-websocket server, when the worker file does not connect peers itself. */
  peers?: { url: string; room: string; params?: Record<string, string> };
};

export type ResultInfo = { rev: number; at?: number; ahead?: true };

export type TabMessage =
  /**
   * `resend`: the ids of the asks the tab re-sends right behind this hello (a standby already has
   * them). `page`: the same for every store of the tab's page (see `host`).
   */
  | { t: "hello"; v: number; tab: string; lock: string; config: BrowserConfig; resend?: number[]; page?: string }
  /**
   * To the next generation's worker, started in advance: keep a live copy of the doc (synced with
   * the current worker on the tabs' BroadcastChannel) and take over the moment `watch`, the
   * current worker's lifetime lock, is released. With `lock` (the tab's lifetime lock, held) the
   * tab then sends its asks here too, as it sends them to the live worker: the standby waits on
   * them with claims held back, so their takeover starts the moment that worker dies.
   * `replica`: the live worker's store for this tab's identity (its `ready`), dead with that lock.
   */
  | { t: "standby"; v: number; config: BrowserConfig; watch: string; lock?: string; replica?: string }
  | {
      t: "ensure";
      id: number;
      kind: WorkKind;
      mode: Mode;
      req: unknown;
      leaseMs?: number;
      maxAgeMs?: number;
      /** When the app asked, on this machine's clock (see ASKED_AT): judged as of then. */
      at?: number;
      retry?: WireRetry;
      /** A refetch's (see EnsureOptions.skipInFlight), on every send: a standby keeps the twin it waits on instead. */
      skipInFlight?: true;
    }
  /** The tab's verdict on a failed attempt, for a retry policy that is a function (answers "retry?"). */
  | { t: "retry"; id: number; retry: boolean; delayMs: number }
  | { t: "abort"; id: number }
  | { t: "sub"; kind: WorkKind; key: string; req: unknown }
  /**
   * What the worker holds for the key now, answered by a `snap`, and again at each result recorded
   * until `unlook`; read only: no subscription, no request.
   */
  | { t: "look"; kind: WorkKind; key: string; req: unknown }
  | { t: "unsub" | "unlook"; key: string }
  | { t: "watch"; inspect: boolean; events: boolean; doc?: boolean }
  /** A Yjs update of the tab's mirror of the doc (the devtools' actions write there). */
  | { t: "doc"; update: Uint8Array }
  /**
   * The devtools' simulations, acted out by the worker's replica (the one every tab shows):
   * `crash` stops it as if its renderer died (its locks let go, its claims left for the next worker).
   */
  | { t: "dev"; action: "crash" }
  | { t: "dev"; action: "pauseNetwork" | "stopHeartbeats"; on: boolean }
  /**
   * pagehide: drop every interest of this tab now (it may come back from the back/forward cache).
   * `gone`: its store was destroyed or its page unloaded for good: the worker ends its session.
   */
  | { t: "bye"; gone?: true };

export type WireError = { name: string; message: string };

/** The worker replica's simulation switches, as the devtools show them. */
export type DevState = { crashed: boolean; networkPaused: boolean; heartbeatsStopped: boolean };

export type WorkerMessage =
  /**
   * `host`: this tab's page is the one whose port connected first, i.e. it started the worker, which
   * then lives in its renderer and dies with it (a later store of that page is told so too, and a
   * later worker of that name, once this one retired, has a host of its own). The other tabs start
   * the next generation's worker in advance. `alone`: the worker reaches no other device, and its file has no connector of its own.
   */
  | { t: "ready"; v: number; replicaId: string; identity: string; lock: string; host?: boolean; alone?: true }
  | { t: "snap"; key: string; snap: Snapshot; info?: ResultInfo }
  | { t: "settled"; id: number; key: string; snap: Snapshot; info?: ResultInfo }
  | { t: "rejected"; id: number; error: WireError }
  /** The retry of the tab's ask `id` waits for the connection (`on`), or no longer does. */
  | { t: "paused"; id: number; on: boolean }
  /** An attempt for the tab's ask `waiter` failed: should it be retried, and after how long? */
  | { t: "retry?"; id: number; waiter: number; failureCount: number; error: { message: string; status?: number } }
  | { t: "inspect"; inspection: Inspection; claims: [string, ClaimRecord][]; malformed: MalformedRecord[]; dev?: DevState }
  | { t: "event"; event: StoreEvent }
  /** A Yjs update of the worker's doc, for a tab that mirrors it (the devtools read the raw records). */
  | { t: "doc"; update: Uint8Array }
  /** The worker cannot serve this tab (bad config, other protocol version): the tab falls back. */
  | { t: "refused"; message: string }
  /** A standby's answer to `standby`: it holds `lock` (STANDBY_LOCK_PREFIX) until it dies. */
  | { t: "standing"; lock: string }
  /** Several of the above, in order (what one microtask produced); each is validated on its own. */
  | { t: "batch"; messages: unknown[] };

/** An error as it crosses the port: its name (AbortError, SharedFetchInputError, …) and message. */
export function toWire(error: unknown): WireError {
  if (error instanceof Error || (isPlainObject(error) && typeof error.message === "string"))
    return { name: String((error as Error).name ?? "Error"), message: String((error as Error).message) };
  return { name: "Error", message: String(error) };
}
