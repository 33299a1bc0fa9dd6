import type * as Y from "yjs";
import { shownValue } from "../core/errors.ts";
import { warnUnknownOptions } from "../core/options.ts";
import type { CreateStoreOptions } from "../core/store.ts";
import { checkLocks } from "../core/store-options.ts";
import { requireOptions, type Connection } from "../sync/connection.ts";
import type { LockManagerLike } from "./port.ts";
import type { BrowserConfig } from "./protocol.ts";

export type BrowserReplicaOptions = {
  /**
   * Connects the doc to other devices, e.g. `(doc) => connectHocuspocus(doc, {...})`. Default:
   * y-websocket to the `peers` the tabs name in `connectBrowser`, if they name any.
   */
  connectPeers?: ((doc: Y.Doc, config: BrowserConfig) => Connection | undefined) | undefined;
  /** The worker's fetch (default: the worker's global fetch). */
  fetch?: typeof fetch | undefined;
  /** Further store options (settleMs, retentionMs, maxResultBytes, …) for every store of this worker. */
  store?: Omit<CreateStoreOptions, "doc" | "identity" | "awareness" | "fetch"> | undefined;
  /** Default: `navigator.locks` of the worker. */
  locks?: LockManagerLike | null | undefined;
  /** Names this worker's lifetime lock (default: the SharedWorker's name). */
  lockName?: string | undefined;
  /**
   * How long this worker serves on once no tab is left (every tab's store destroyed, closed or
   * crashed) before it retires: its doc, sockets and database closed (default RETIRE_AFTER_MS;
   * Infinity: never).
   */
  retireAfterMs?: number | undefined;
  /** Called once it retired (serveBrowserReplica closes the worker right after it). */
  onRetire?: (() => void) | undefined;
};

const OPTION_TYPES = { connectPeers: "function", fetch: "function", onRetire: "function", lockName: "string", store: "object" };
const REPLICA_OPTIONS = { ...OPTION_TYPES, locks: 0, retireAfterMs: 0 } satisfies Record<keyof BrowserReplicaOptions, unknown>;

/**
 * Refuses options of the wrong shape at once, naming the value: in a worker, a bad value taken for
 * none (or failing at its first use) shows far from the page that built it.
 */
export function checkReplicaOptions(options: unknown, fn = "createBrowserReplica"): asserts options is BrowserReplicaOptions {
  requireOptions(fn, options);
  const o = options as Record<string, unknown>;
  warnUnknownOptions(fn, o, REPLICA_OPTIONS);
  for (const [name, type] of Object.entries(OPTION_TYPES))
    if (o[name] !== undefined && (typeof o[name] !== type || o[name] === null))
      throw new TypeError(`${fn}: \`${name}\` must be ${type === "object" ? "an" : "a"} ${type} when given, got ${shownValue(o[name])}`);
  checkLocks(o.locks);
  const ms = o.retireAfterMs;
  if (ms !== undefined && !(typeof ms === "number" && ms >= 0 && (ms < 2 ** 31 || ms === Infinity)))
    throw new TypeError(`${fn}: \`retireAfterMs\` must be a number of ms from 0 to 2^31 - 1, or Infinity, got ${shownValue(ms)}`);
}

/** The options of the worker's store for a tab's identity, on its doc `d` (`storeLocks`: a standby's, key locks held back). */
export function storeOptions(
  options: BrowserReplicaOptions,
  d: Y.Doc,
  config: BrowserConfig,
  awareness: Connection["awareness"] | undefined,
  storeLocks: LockManagerLike | undefined,
): CreateStoreOptions {
  return {
    ...options.store,
    doc: d,
    identity: config.identity,
    ...(awareness ? { awareness } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    // The tab's own browser id: the worker arbitrates keys with tab replicas of that browser.
    ...(config.browserId !== undefined ? { browserId: config.browserId, keyLockScope: "" } : {}),
    ...(config.leaseMs !== undefined ? { leaseMs: config.leaseMs } : {}),
    ...(config.programLeaseMs !== undefined ? { programLeaseMs: config.programLeaseMs } : {}),
    ...(storeLocks ? { locks: storeLocks } : options.locks !== undefined ? { locks: options.locks } : {}),
  };
}
