import { uuidv4 } from "lib0/random";
import type { Outcome } from "./fetcher.ts";
import type { WorkKind } from "./key.ts";
import type { RecordMap } from "./lanes.ts";
import type { ResultRecord } from "./records.ts";
import type { Snapshot } from "./types.ts";

/** One unit of coordinated work: what to claim, where its result lives, and how to run it. */
export type Job = {
  kind: WorkKind;
  key: string;
  label: string;
  leaseMs: number;
  results: RecordMap<ResultRecord>;
  run(ctx: { signal: AbortSignal; rev: number; idempotencyKey: string }): Promise<Outcome>;
};

export type Waiter = { minRev: number; resolve: (s: Snapshot) => void; reject: (e: unknown) => void; cleanup: () => void };

export type LocalWork = {
  rev: number;
  nonce: string;
  controller: AbortController;
  phase: "settling" | "running";
  /** Started with no waiter here, to finish abandoned work for the key's listeners. */
  forListeners: boolean;
  settleTimer?: ReturnType<typeof setTimeout>;
};

export type KeyState = {
  key: string;
  kind: WorkKind;
  results: RecordMap<ResultRecord>;
  job?: Job;
  waiters: Set<Waiter>;
  listeners: Set<() => void>;
  local?: LocalWork;
  snapshot?: Snapshot;
  notified?: Snapshot;
  /** The newest result this replica has seen for the key (see read()). */
  seen?: ResultRecord;
  timer?: ReturnType<typeof setTimeout>;
  timerAt?: number;
};

export const ORIGIN = "shared-fetch";
/** How many keys may hold state with nobody waiting or listening (snapshot() calls only). */
export const IDLE_STATES = 1000;

/** crypto.randomUUID exists only in secure contexts; an app served over plain http on a LAN needs this. */
export function randomId(): string {
  return uuidv4();
}

