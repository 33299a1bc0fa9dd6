import type { OutcomeError } from "./fetcher.ts";
import { isId, isPlainObject, own } from "./request.ts";

/** "Replica R works on this key at revision `rev`": a lease on the right to fetch, not a timeout. */
export type ClaimRecord = {
  replicaId: string;
  /** Unique per claim: tells a takeover (same rev, new nonce) from the claim it replaced. */
  nonce: string;
  rev: number;
  /** The claimant's own lease bound: observers judge its silence by it, not by their own setting. */
  leaseMs: number;
  /** Present when the claimant can be watched through Web Locks (same browser). */
  browserId?: string;
  /** Method, origin and path only: never a query string, header value or body. */
  label?: string;
  /** Set by a claimant whose page went away mid-request: stale at once, for anyone to take over. */
  abandoned?: true;
  /** What kind of work is claimed (absent in claims of older versions). */
  kind?: "fetch" | "program";
  /**
   * Dispatched with no settle window: its claimant saw no replica of another browser present. It
   * outranks a window-waiting claim of the same revision, so a newcomer racing it yields.
   */
  eager?: true;
  /**
   * Random per revision's first claim, copied by a takeover of that revision: the request's Idempotency-Key is `key.rev.ik`,
   * the same for a takeover's duplicate (invariant 12), never the same for a later call whose revision number repeats one
   * the doc no longer remembers (a record swept by retention, a doc that never saw the first).
   */
  ik?: string;
  /**
   * The claimant's clock when it wrote the claim (absent in claims of older versions): its request is sent no earlier, so
   * a replica that joined it can tell older data at a higher revision (freshness.ts, outran) as the claimant does.
   */
  at?: number;
  /**
   * Written by a takeover (absent in claims of older versions): the claimant it replaced may still
   * come home at this revision, first home counts (invariant 6), however old its request.
   */
  takeover?: true;
  /** A takeover's: the nonce of the claim it replaced, whose claimant may still run it; its beats for it count (liveness.ts). */
  replaced?: string;
  /**
   * How many attempts of this claim failed and were retried (`n`; absent: none, or an older
   * version), rewritten once per failure, with the last failure as its error record would say it
   * (no secret, invariant 13): replicas that joined the claim show them as its claimant does.
   */
  failed?: ClaimFailures;
};

export type ClaimFailures = OutcomeError & { n: number };

/**
 * `at` (optional; absent in records written before it existed): the writer's clock, ms since the
 * epoch, when the writing replica sent the request that got it. Ages are judged on it (see freshness.ts).
 * `done`: the writer's clock as it wrote it (absent in older versions; freshness.ts, joinedWhenAsked).
 * `by`: the replica whose attempt wrote it (absent in records of older versions); for the devtools.
 * `inv`: when it was invalidated (`at` is then 0), on the invalidating replica's clock (absent in
 * marks of older versions): a partition's other side may bring a result sent before it (keepNewer).
 */
export type ResultRecord = { rev: number; data: unknown; label?: string; at?: number; done?: number; by?: string; inv?: number };
/**
 * `label` and `kind` (absent in records of older versions): what the claim said, kept once it is
 * gone, so that a replica that never asked can still name a key whose only outcome is an error (a
 * result names it by its label and its table).
 */
export type ErrorRecord = {
  rev: number;
  message: string;
  status?: number;
  at?: number;
  done?: number;
  by?: string;
  label?: string;
  kind?: "fetch" | "program";
  /** As a result's (ResultRecord). */
  inv?: number;
};
/** One liveness record per replica, bumped while it has work in flight. */
export type BeatRecord = {
  n: number;
  /** Nonces of the claims this beat vouches for (absent: every claim of the replica, older versions). */
  nonces?: string[];
};

/**
 * Revisions stay far below 2^53 so that "the next revision" is always exact and always valid: a peer's record beyond
 * this is malformed (ignored), never a revision anyone builds on. At one refetch per millisecond a key would need 24 days.
 */
export const MAX_REV = 2 ** 31;
/** How deep a JSON payload may nest; every replica reads with the same bound. */
export const MAX_JSON_DEPTH = 64;
/**
 * How many values a JSON payload may hold: validation cost stays bounded whatever a peer writes.
 * A 1 MiB response (DEFAULT_MAX_RESULT_BYTES) holds at most about 524 000 (`[0,0,…]`).
 */
export const MAX_JSON_VALUES = 1_000_000;
const MAX_LEASE_MS = 7 * 24 * 3600_000;

function isRev(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_REV;
}

const REV_PROBLEM = (what: string) => `${what}.rev is not an integer from 1 to ${MAX_REV}`;

const isAt = (value: unknown): boolean => value === undefined || (typeof value === "number" && Number.isFinite(value));

/** An outcome's dates, each absent or a finite number: the first that is not, named. */
function badDate(value: Record<string, unknown>, what: string): string | undefined {
  for (const field of ["at", "done", "inv"]) if (!isAt(own(value, field))) return `${what}.${field} is not a finite number`;
}

/** A higher revision wins; at one revision an eager claim (already dispatched) beats one still settling. */
export const claimRank = (claim: ClaimRecord): number => claim.rev * 2 + (claim.eager ? 1 : 0);

export function validateClaim(value: unknown): ClaimRecord | string {
  if (!isPlainObject(value)) return "claim is not a plain object";
  const replicaId = own(value, "replicaId");
  const nonce = own(value, "nonce");
  const rev = own(value, "rev");
  const leaseMs = own(value, "leaseMs");
  const browserId = own(value, "browserId");
  const label = own(value, "label");
  const abandoned = own(value, "abandoned");
  const kind = own(value, "kind");
  const eager = own(value, "eager");
  const ik = own(value, "ik");
  const at = own(value, "at");
  const takeover = own(value, "takeover");
  if (!isId(replicaId)) return "claim.replicaId is not a non-empty string";
  if (!isId(nonce)) return "claim.nonce is not a non-empty string";
  if (!isRev(rev)) return REV_PROBLEM("claim");
  if (typeof leaseMs !== "number" || !(leaseMs > 0) || leaseMs > MAX_LEASE_MS) return "claim.leaseMs is not a positive number of ms";
  if (browserId !== undefined && !isId(browserId)) return "claim.browserId is not a string";
  if (label !== undefined && typeof label !== "string") return "claim.label is not a string";
  if (abandoned !== undefined && abandoned !== true) return "claim.abandoned is not true";
  if (kind !== undefined && kind !== "fetch" && kind !== "program") return "claim.kind is not fetch or program";
  if (eager !== undefined && eager !== true) return "claim.eager is not true";
  if (ik !== undefined && !isId(ik)) return "claim.ik is not a non-empty string";
  if (!isAt(at)) return "claim.at is not a finite number";
  if (takeover !== undefined && takeover !== true) return "claim.takeover is not true";
  const claim: ClaimRecord = { replicaId, nonce, rev, leaseMs };
  if (abandoned) claim.abandoned = true;
  if (browserId !== undefined) claim.browserId = browserId;
  if (label !== undefined) claim.label = label;
  if (kind !== undefined) claim.kind = kind;
  if (eager) claim.eager = true;
  if (ik !== undefined) claim.ik = ik;
  if (at !== undefined) claim.at = at as number;
  if (takeover) claim.takeover = true;
  // A malformed count or `replaced` is read as none, never as a malformed claim: that would hide
  // a live claimant (a takeover, or "done, nothing here") for a field that only informs.
  const replaced = own(value, "replaced");
  if (isId(replaced)) claim.replaced = replaced;
  // Copied field by field and frozen, as the claim: the doc's own object is never handed out.
  const failed = own(value, "failed");
  if (isPlainObject(failed)) {
    const n = own(failed, "n");
    const message = own(failed, "message");
    const status = own(failed, "status");
    if (isRev(n) && typeof message == "string" && (status === undefined || Number.isInteger(status)))
      claim.failed = Object.freeze(status === undefined ? { n, message } : { n, message, status: status as number });
  }
  // Read by the engine and handed out as read (store.claims()): a caller cannot change its verdicts.
  return Object.freeze(claim);
}

/** `validateData` checks the payload of one kind of work (JSON for fetches, a Program for programs). */
export function resultValidator(validateData: (data: unknown) => string | null): (value: unknown) => ResultRecord | string {
  return (value) => {
    if (!isPlainObject(value)) return "result is not a plain object";
    const rev = own(value, "rev");
    if (!isRev(rev)) return REV_PROBLEM("result");
    if (!Object.hasOwn(value, "data")) return "result has no data";
    const problem = validateData(value.data);
    if (problem) return `result.data ${problem}`;
    const label = own(value, "label");
    if (label !== undefined && typeof label !== "string") return "result.label is not a string";
    const by = own(value, "by");
    if (by !== undefined && !isId(by)) return "result.by is not a replica id";
    // The record object itself is returned so that data keeps its identity across reads.
    return badDate(value, "result") ?? (value as ResultRecord);
  };
}

export function validateError(value: unknown): ErrorRecord | string {
  if (!isPlainObject(value)) return "error is not a plain object";
  const rev = own(value, "rev");
  const message = own(value, "message");
  const status = own(value, "status");
  if (!isRev(rev)) return REV_PROBLEM("error");
  if (typeof message !== "string") return "error.message is not a string";
  if (status !== undefined && !(typeof status === "number" && Number.isInteger(status))) return "error.status is not an integer";
  const by = own(value, "by");
  if (by !== undefined && !isId(by)) return "error.by is not a replica id";
  const label = own(value, "label");
  if (label !== undefined && typeof label !== "string") return "error.label is not a string";
  const kind = own(value, "kind");
  if (kind !== undefined && kind !== "fetch" && kind !== "program") return "error.kind is not fetch or program";
  return badDate(value, "error") ?? (value as ErrorRecord);
}

export function validateBeat(value: unknown): BeatRecord | string {
  if (!isPlainObject(value)) return "heartbeat is not a plain object";
  const n = own(value, "n");
  if (typeof n !== "number" || !Number.isSafeInteger(n)) return "heartbeat.n is not an integer";
  const nonces = own(value, "nonces");
  if (nonces !== undefined && !(Array.isArray(nonces) && nonces.length <= 10_000 && nonces.every(isId)))
    return "heartbeat.nonces is not a list of ids";
  return value as BeatRecord;
}

export function validateAsk(value: unknown): number | string {
  return typeof value === "number" && Number.isFinite(value) ? value : "last-asked time is not a number";
}

/**
 * JSON payloads only, as every replica can read them back from the doc: finite numbers, at most
 * MAX_JSON_DEPTH levels, at most MAX_JSON_VALUES values, and no own `__proto__` key (Yjs decodes
 * objects by assignment, so a peer would receive it as a prototype, not a key). The writer runs
 * this same check before writing (writeback.ts), so whatever it writes every replica reads.
 * Stops at the first problem; the cost is bounded by MAX_JSON_VALUES.
 */
export function validateJson(data: unknown): string | null {
  const budget = { left: MAX_JSON_VALUES };
  return checkJson(data, 0, budget);
}

function checkJson(data: unknown, depth: number, budget: { left: number }): string | null {
  if (--budget.left < 0) return `holds more than ${MAX_JSON_VALUES} values`;
  if (data === null || typeof data === "string" || typeof data === "boolean") return null;
  if (typeof data === "number") return Number.isFinite(data) ? null : "holds a number JSON cannot carry (Infinity or NaN, e.g. from 1e999)";
  if (depth >= MAX_JSON_DEPTH) return `is nested more than ${MAX_JSON_DEPTH} levels deep`;
  if (Array.isArray(data)) {
    for (const item of data) {
      const problem = checkJson(item, depth + 1, budget);
      if (problem) return problem;
    }
    return null;
  }
  if (isPlainObject(data)) {
    if (Object.hasOwn(data, "__proto__")) return 'holds a "__proto__" key, which peers would not read back as a key';
    for (const key of Object.keys(data)) {
      const problem = checkJson(data[key], depth + 1, budget);
      if (problem) return problem;
    }
    return null;
  }
  return `is not JSON (found ${typeof data})`;
}
