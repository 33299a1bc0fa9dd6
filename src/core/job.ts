import type { Attempt } from "./attempt.ts";
import type { Outcome, OutcomeError } from "./fetcher.ts";
import type { WorkKind } from "./key.ts";
import type { RecordMap } from "./lanes.ts";
import type { ClaimRecord, ResultRecord } from "./records.ts";
import type { Snapshot } from "./types.ts";

/** One unit of coordinated work: what to claim, where its result lives, and how to run it. */
export type Job = {
  kind: WorkKind;
  key: string;
  label: string;
  leaseMs: number;
  results: RecordMap<ResultRecord>;
  /** `failed`: each failure the claim retries (see withRetries), told in the claim for the replicas that joined it. */
  run(ctx: {
    signal: AbortSignal;
    rev: number;
    idempotencyKey: string;
    failed?: (failures: number, error: OutcomeError) => void;
  }): Promise<Outcome>;
};

export type Waiter = {
  minRev: number;
  resolve: (s: Snapshot) => void;
  reject: (e: unknown) => void;
  cleanup: () => void;
  /**
   * A freshness demand made while the store was starting, before it could see what is recorded
   * (a persisted result loads later): the outcome it would take is judged against it first. A
   * refetch's demand is an outcome written since its ask (maxAgeMs 0), the one claimed since
   * too with `skip` (skipInFlight: a claim the store sees once ready was made before the ask).
   */
  judge?: { askedAt: number; maxAgeMs: number; skip?: boolean; joins?: boolean };
};

/** Everything one replica keeps about one key. */
export type KeyState = {
  key: string;
  kind: WorkKind;
  results: RecordMap<ResultRecord>;
  job?: Job;
  waiters: Set<Waiter>;
  listeners: Set<() => void>;
  attempt?: Attempt;
  /** An attempt aborted for a newer one (refetched): its claim and key lock wait for the newer claim. */
  replaced?: Attempt | undefined;
  /** Nonces of the last claims this replica made for the key: a claim under our id with another is not ours. */
  nonces: string[];
  /** Highest revision an attempt of this replica finished: never sent again. */
  settled: number;
  snapshot?: Snapshot;
  notified?: Snapshot;
  /** The last claim seen standing while a waiter here waited (see AttemptDeps.joined). */
  joined?: ClaimRecord | undefined;
  /** The newest result this replica has seen for the key (see ClaimEngine.read). */
  seen?: ResultRecord;
  /** The revision of the last foreign claim this replica joined or yielded to (StoreEvent `joined`: told once). */
  told?: number | undefined;
  /** The revision this replica published it waits for on a foreign claim of the key (EngineOptions.waits). */
  waitsFor?: number | undefined;
  timer?: ReturnType<typeof setTimeout>;
  timerAt?: number;
};

export const ORIGIN = "shared-fetch";
/** How many keys may hold state with nobody waiting or listening (snapshot() calls only). */
export const IDLE_STATES = 1000;

/**
 * A random v4 UUID. `crypto.randomUUID` exists only in secure contexts (an app served over plain
 * http on a LAN has none), so the fallback formats 16 bytes of one `getRandomValues` call — not a
 * call per hex digit, which made id generation the largest cost of a request.
 */
export function randomId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
