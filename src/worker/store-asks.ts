import { internalsOf } from "../core/internals.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { EnsureOptions, Snapshot } from "../core/types.ts";
import type { TabMessage } from "./protocol.ts";

/** A tab's ask put to the worker's store: the store's promise. */
export function askStore(
  store: SharedFetchStoreWithExtras,
  msg: Extract<TabMessage, { t: "ensure" }>,
  opts: EnsureOptions,
): Promise<Snapshot> {
  if (msg.kind === "fetch")
    return msg.mode === "refetch"
      ? store.refetch(msg.req as never, msg.skipInFlight ? { ...opts, skipInFlight: true } : opts)
      : store.ensure(msg.req as never, msg.maxAgeMs !== undefined ? { ...opts, maxAgeMs: msg.maxAgeMs } : opts);
  return msg.mode === "refetch"
    ? store.refetchProgram(msg.req as never, msg.skipInFlight ? { ...opts, skipInFlight: true } : opts)
    : store.ensureProgram(msg.req as never, msg.maxAgeMs !== undefined ? { ...opts, maxAgeMs: msg.maxAgeMs } : opts);
}

/** The worker store's snapshot of a tab's request: a read, which starts nothing. */
export function snapshotOf(store: SharedFetchStoreWithExtras, kind: "fetch" | "program", req: unknown): Snapshot {
  return kind === "fetch" ? store.snapshot(req as never) : store.programSnapshot(req as never);
}

/** The recorded result's revision and date, sent with a snapshot or an answer (none: nothing recorded). */
export function resultInfoOf(
  store: SharedFetchStoreWithExtras,
  kind: "fetch" | "program",
  req: unknown,
): { info?: { rev: number; at?: number; ahead?: true } } {
  const info = kind === "fetch" ? store.resultInfo(req as never) : store.programResultInfo(req as never);
  return info ? { info } : {};
}

/** A devtools simulation from a tab, acted out on the worker's replica (every tab's). */
export function actOutDev(store: SharedFetchStoreWithExtras, msg: Extract<TabMessage, { t: "dev" }>, crash: () => void): void {
  if (msg.action === "crash") return crash();
  const { dev } = internalsOf(store);
  if (msg.action === "pauseNetwork") dev.pauseNetwork(msg.on);
  else dev.stopHeartbeats(msg.on);
}
