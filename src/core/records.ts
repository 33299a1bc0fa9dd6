import { isPlainObject } from "./request.ts";

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
};

/** `by`: the replica whose attempt wrote it (absent in records of older versions); for the devtools. */
export type ResultRecord = { rev: number; data: unknown; label?: string; by?: string };
export type ErrorRecord = { rev: number; message: string; status?: number; by?: string };
/** One liveness record per replica, bumped while it has work in flight. */
export type BeatRecord = {
  n: number;
  /** Nonces of the claims this beat vouches for (absent: every claim of the replica, older versions). */
  nonces?: string[];
};

const MAX_ID = 200;
const MAX_LEASE_MS = 7 * 24 * 3600_000;

function isId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_ID;
}

function isRev(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

function own(record: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

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
  if (!isId(replicaId)) return "claim.replicaId is not a non-empty string";
  if (!isId(nonce)) return "claim.nonce is not a non-empty string";
  if (!isRev(rev)) return "claim.rev is not a positive integer";
  if (typeof leaseMs !== "number" || !(leaseMs > 0) || leaseMs > MAX_LEASE_MS) return "claim.leaseMs is not a positive number of ms";
  if (browserId !== undefined && !isId(browserId)) return "claim.browserId is not a string";
  if (label !== undefined && typeof label !== "string") return "claim.label is not a string";
  if (abandoned !== undefined && abandoned !== true) return "claim.abandoned is not true";
  if (kind !== undefined && kind !== "fetch" && kind !== "program") return "claim.kind is not fetch or program";
  const claim: ClaimRecord = { replicaId, nonce, rev, leaseMs };
  if (abandoned) claim.abandoned = true;
  if (browserId !== undefined) claim.browserId = browserId;
  if (label !== undefined) claim.label = label;
  if (kind !== undefined) claim.kind = kind;
  return claim;
}

/** `validateData` checks the payload of one kind of work (JSON for fetches, a Program for programs). */
export function resultValidator(validateData: (data: unknown) => string | null): (value: unknown) => ResultRecord | string {
  return (value) => {
    if (!isPlainObject(value)) return "result is not a plain object";
    const rev = own(value, "rev");
    if (!isRev(rev)) return "result.rev is not a positive integer";
    if (!Object.hasOwn(value, "data")) return "result has no data";
    const problem = validateData(value.data);
    if (problem) return `result.data ${problem}`;
    const label = own(value, "label");
    if (label !== undefined && typeof label !== "string") return "result.label is not a string";
    const by = own(value, "by");
    if (by !== undefined && !isId(by)) return "result.by is not a replica id";
    // The record object itself is returned so that data keeps its identity across reads.
    return value as ResultRecord;
  };
}

export function validateError(value: unknown): ErrorRecord | string {
  if (!isPlainObject(value)) return "error is not a plain object";
  const rev = own(value, "rev");
  const message = own(value, "message");
  const status = own(value, "status");
  if (!isRev(rev)) return "error.rev is not a positive integer";
  if (typeof message !== "string") return "error.message is not a string";
  if (status !== undefined && !(typeof status === "number" && Number.isInteger(status))) return "error.status is not an integer";
  const by = own(value, "by");
  if (by !== undefined && !isId(by)) return "error.by is not a replica id";
  return value as ErrorRecord;
}

export function validateBeat(value: unknown): BeatRecord | string {
  if (!isPlainObject(value)) return "heartbeat is not a plain object";
  const n = own(value, "n");
  if (typeof n !== "number" || !Number.isSafeInteger(n)) return "heartbeat.n is not an integer";
  const nonces = own(value, "nonces");
  if (nonces !== undefined && !(Array.isArray(nonces) && nonces.length <= 10_000 && nonces.every(isId))) return "heartbeat.nonces is not a list of ids";
  return value as BeatRecord;
}

export function validateAsk(value: unknown): number | string {
  return typeof value === "number" && Number.isFinite(value) ? value : "last-asked time is not a number";
}

/** JSON payloads only: anything a peer could put there that is not JSON is refused. */
export function validateJson(data: unknown, depth = 0): string | null {
  if (depth > 64) return "is nested too deeply";
  if (data === null || typeof data === "string" || typeof data === "boolean") return null;
  if (typeof data === "number") return Number.isFinite(data) ? null : "holds a non-finite number";
  if (Array.isArray(data)) {
    for (const item of data) {
      const problem = validateJson(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (isPlainObject(data)) {
    for (const key of Object.keys(data)) {
      const problem = validateJson(data[key], depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  return `is not JSON (found ${typeof data})`;
}
