import type { Awareness } from "y-protocols/awareness";
import { isPlainObject, PRESENCE_FIELD } from "./core.ts";

export type Presence = Map<string, { browserId?: string }>;

/** Replicas published in awareness. Peers' states are untrusted: anything odd is skipped. */
export function readPresence(awareness: Awareness | undefined): Presence | undefined {
  if (!awareness) return undefined;
  const present: Presence = new Map();
  for (const state of awareness.getStates().values()) {
    const replicaId = presenceId(state);
    if (replicaId === undefined) continue;
    const field = (state as Record<string, Record<string, unknown>>)[PRESENCE_FIELD]!;
    const browserId = Object.hasOwn(field, "browserId") ? field.browserId : undefined;
    present.set(replicaId, typeof browserId === "string" && browserId.length <= 200 ? { browserId } : {});
  }
  return present;
}

/** The replica an awareness state publishes, if it is a well-formed one. */
export function presenceId(state: unknown): string | undefined {
  const field = isPlainObject(state) ? state[PRESENCE_FIELD] : undefined;
  const replicaId = isPlainObject(field) && Object.hasOwn(field, "replicaId") ? field.replicaId : undefined;
  return typeof replicaId === "string" && replicaId.length > 0 && replicaId.length <= 200 ? replicaId : undefined;
}
