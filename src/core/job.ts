import { uuidv4 } from "lib0/random";
import type { Attempt } from "./attempt.ts";
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

/** Everything one replica keeps about one key. */
export type KeyState = {
  key: string;
  kind: WorkKind;
  results: RecordMap<ResultRecord>;
  job?: Job;
  waiters: Set<Waiter>;
  listeners: Set<() => void>;
  attempt?: Attempt;
  /** Nonces of the last claims this replica made for the key: a claim under our id with another is not ours. */
  nonces: string[];
  /** Highest revision an attempt of this replica finished: never sent again. */
  settled: number;
  snapshot?: Snapshot;
  notified?: Snapshot;
  /** The newest result this replica has seen for the key (see ClaimEngine.read). */
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
