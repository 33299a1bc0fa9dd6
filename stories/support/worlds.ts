import { useSyncExternalStore } from "react";
import type { SharedRequest, Snapshot } from "../../src/index.ts";
import type { Host } from "../../sim/host.ts";
import type { Replica, WorldState } from "./replicas.ts";

/**
 * True once the host received a call from `from` (default: any). A scenario about A's fate lets B
 * ask only then, so that A is the claimant whatever the machine's timing.
 */
export function useAsked(host: Host, from?: string): boolean {
  const state = useSyncExternalStore(host.subscribe, host.getState, host.getState);
  return state.log.some((c) => from === undefined || c.from === from);
}

/** Each live replica's snapshot of `req` (crashed and closed ones left out). */
export function liveSnapshots(state: WorldState, req: SharedRequest): [Replica, Snapshot][] {
  return state.replicas
    .filter((r) => !state.crashed.has(r.replicaId) && !state.closed.has(r.replicaId))
    .map((r) => [r, r.store.snapshot(req)]);
}

/** Every live replica shows a settled result. */
export function allSucceeded(state: WorldState, req: SharedRequest): boolean {
  const live = liveSnapshots(state, req);
  return live.length > 0 && live.every(([, s]) => s.status === "success" && s.data !== undefined);
}

/** The Storybook controls every scenario shares, described for the Controls panel. */
export const leaseArg = {
  description:
    "Lease bound of every claim (ms): how long others believe a silent claimant. Short here so that several pass while you watch.",
  control: { type: "number", min: 200, step: 100 },
} as const;
export const delayArg = {
  description: "How long the simulated host takes to answer (ms).",
  control: { type: "number", min: 0, step: 100 },
} as const;
export const urlArg = {
  description: "What the panes ask for (the simulated host answers any URL).",
  control: "text",
} as const;
