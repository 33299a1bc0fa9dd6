import type { Awareness } from "y-protocols/awareness";
import { isPlainObject, PRESENCE_FIELD } from "./core.ts";

export type Presence = Map<string, { browserId?: string }>;

/** Replicas published in awareness. Peers' states are untrusted: anything odd is skipped. */
export function readPresence(awareness: Awareness | undefined): Presence | undefined {
  if (!awareness) return undefined;
  const present: Presence = new Map();
  for (const state of awareness.getStates().values()) {
    const field = isPlainObject(state) ? state[PRESENCE_FIELD] : undefined;
    if (!isPlainObject(field)) continue;
    const replicaId = Object.hasOwn(field, "replicaId") ? field.replicaId : undefined;
    const browserId = Object.hasOwn(field, "browserId") ? field.browserId : undefined;
    if (typeof replicaId !== "string" || replicaId.length === 0 || replicaId.length > 200) continue;
    present.set(replicaId, typeof browserId === "string" && browserId.length <= 200 ? { browserId } : {});
  }
  return present;
}
