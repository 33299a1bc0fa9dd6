/** What a tab accepts from the worker (see protocol.ts): a malformed message is dropped and counted, never thrown. */
import { isPlainObject } from "../core/request.ts";
import type { Snapshot } from "../core/types.ts";
import type { DevState, WorkerMessage } from "./protocol.ts";
import { int, optNum, str } from "./wire-fields.ts";

const STATUSES = new Set(["idle", "pending", "success", "error"]);

function isSnapshot(v: unknown): v is Snapshot {
  if (!isPlainObject(v) || !STATUSES.has(v.status as string)) return false;
  if (v.error !== undefined && !(isPlainObject(v.error) && typeof v.error.message === "string")) return false;
  if (v.claim !== undefined) {
    const c = v.claim;
    if (!isPlainObject(c) || typeof c.replicaId !== "string" || typeof c.mine !== "boolean" || typeof c.stale !== "boolean") return false;
  }
  return true;
}

function isInfo(v: unknown): boolean {
  return v === undefined || (isPlainObject(v) && int(v.rev) && optNum(v.at));
}

function isDevState(v: unknown): v is DevState {
  return (
    isPlainObject(v) && typeof v.crashed === "boolean" && typeof v.networkPaused === "boolean" && typeof v.heartbeatsStopped === "boolean"
  );
}

/** The worker's message as a tab accepts it, or undefined. */
export function parseWorkerMessage(data: unknown): WorkerMessage | undefined {
  if (!isPlainObject(data)) return undefined;
  switch (data.t) {
    case "ready":
      return int(data.v) && str(data.replicaId) && typeof data.identity === "string" && str(data.lock)
        ? (data as WorkerMessage)
        : undefined;
    case "snap":
      return str(data.key) && isSnapshot(data.snap) && isInfo(data.info) ? (data as WorkerMessage) : undefined;
    case "settled":
      return int(data.id) && str(data.key) && isSnapshot(data.snap) && isInfo(data.info) ? (data as WorkerMessage) : undefined;
    case "rejected":
      return int(data.id) && isPlainObject(data.error) && typeof data.error.name === "string" && typeof data.error.message === "string"
        ? (data as WorkerMessage)
        : undefined;
    case "retry?":
      return int(data.id) &&
        int(data.waiter) &&
        int(data.failureCount) &&
        isPlainObject(data.error) &&
        typeof data.error.message === "string" &&
        optNum(data.error.status)
        ? (data as WorkerMessage)
        : undefined;
    case "inspect":
      return isPlainObject(data.inspection) &&
        Array.isArray((data.inspection as { keys?: unknown }).keys) &&
        Array.isArray(data.claims) &&
        Array.isArray(data.malformed) &&
        (data.dev === undefined || isDevState(data.dev))
        ? (data as WorkerMessage)
        : undefined;
    case "event":
      return isPlainObject(data.event) && typeof data.event.type === "string" ? (data as WorkerMessage) : undefined;
    case "refused":
      return typeof data.message === "string" ? (data as WorkerMessage) : undefined;
    case "standing":
      return str(data.lock) ? (data as WorkerMessage) : undefined;
    case "paused":
      return int(data.id) && typeof data.on === "boolean" ? (data as WorkerMessage) : undefined;
    case "batch":
      return Array.isArray(data.messages) ? (data as WorkerMessage) : undefined;
    case "doc":
      return data.update instanceof Uint8Array ? (data as WorkerMessage) : undefined;
    default:
      return undefined;
  }
}
