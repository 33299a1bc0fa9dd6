import { abortError, describe, SharedFetchInputError } from "./errors.ts";
import type { Outcome, OutcomeError } from "./fetcher.ts";

/**
 * How a failed attempt is retried *inside the claim*: the claimant keeps its claim (and its
 * heartbeats) through every attempt and the pause between them, so other replicas show pending
 * and the host sees one sequence of attempts, not one per replica. Counts follow TanStack Query:
 * `failureCount` is the number of failures before this one (0 for the first).
 */
export type RetryPolicy = {
  /** May answer later (a SharedWorker asks the tab whose policy it is). */
  retry(failureCount: number, error: OutcomeError): boolean | Promise<boolean>;
  /** `signal`: the request's; a delay still waiting (for the connection) ends when it aborts. */
  delayMs(failureCount: number, error: OutcomeError, signal?: AbortSignal): number | Promise<number>;
  /** The same policy as plain data, where it is data: then it crosses a port without asking back. */
  data?: RetryData | undefined;
  /**
   * Set by pausingWhileOffline: the policy without the wait for the connection, and who hears the
   * wait. A SharedWorker waits on its own navigator, tells the tab, and asks the tab only `base`.
   */
  offline?: { base: RetryPolicy; paused?: ((on: boolean) => void) | undefined } | undefined;
};

/**
 * TanStack's `retry` when it is a boolean or a count, its `retryDelay` when it is a number or
 * TanStack's default (`"exponential"`, exponentialDelay). An absent field is a function.
 * `pauseOffline`: a retry also waits while the runtime is offline (TanStack's networkMode
 * "online" and "offlineFirst"); a SharedWorker replica reads its own `navigator.onLine`.
 */
export type RetryData = {
  retry?: boolean | number | undefined;
  delayMs?: number | "exponential" | undefined;
  pauseOffline?: boolean | undefined;
};

/** Whether the runtime is online, and news of it (TanStack's onlineManager, a worker's navigator). */
export type OnlineSource = { isOnline(): boolean; subscribe(listener: (online: boolean) => void): () => void };

/**
 * The policy with each retry's delay run as TanStack's retryer runs it: the delay, then, if
 * offline, until online (the delay counted from the failure, so what is left of it once back online
 * is waited, nothing more). An offline browser's failures do not use up the retries. `paused`
 * hears the wait begin and end (TanStack shows it as `fetchStatus: "paused"`).
 */
export function pausingWhileOffline(policy: RetryPolicy, online: OnlineSource, paused?: (on: boolean) => void): RetryPolicy {
  return {
    ...policy,
    delayMs: async (count, error, signal) => {
      const from = Date.now();
      const ms = await policy.delayMs(count, error, signal);
      if (online.isOnline() || signal?.aborted) return ms;
      paused?.(true);
      // An abort (the last waiter gone) ends the wait: the claim and its heartbeats must not
      // outlive it until the browser is back online.
      await new Promise<void>((resolve) => {
        const done = (): void => {
          off();
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const off = online.subscribe((now) => now && done());
        signal?.addEventListener("abort", done);
      });
      paused?.(false);
      return Math.max(0, ms - (Date.now() - from));
    },
    ...(policy.data ? { data: { ...policy.data, pauseOffline: true } } : {}),
    offline: { base: policy, paused },
  };
}

/** setTimeout's longest delay (a signed 32-bit count of milliseconds). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** TanStack Query's default retryDelay. */
export const exponentialDelay = (failureCount: number): number => Math.min(1000 * 2 ** failureCount, 30_000);

export const NO_RETRY: RetryPolicy = { retry: () => false, delayMs: () => 0, data: { retry: false, delayMs: 0 } };

/** TanStack Query's `retry`: always or never, a number of retries, or a verdict per failure. */
export type RetryOption<E = OutcomeError> = boolean | number | ((failureCount: number, error: E) => boolean);
/** TanStack Query's `retryDelay`: milliseconds, or a delay per failure. */
export type RetryDelayOption<E = OutcomeError> = number | ((failureCount: number, error: E) => number);

/**
 * TanStack's `retry` / `retryDelay` as a policy the claimant runs (retryDelay defaults to TanStack's
 * exponentialDelay). `asError` makes what the functions receive from a recorded failure. Counts
 * and delays are also kept as data, so a SharedWorker replica runs them without asking back.
 */
export function tanstackRetry<E>(
  retry: RetryOption<E>,
  retryDelay: RetryDelayOption<E> | undefined,
  asError: (error: OutcomeError) => E,
): RetryPolicy {
  // As TanStack's retryer runs them: `failureCount < retry` never holds for a negative count or
  // NaN, and setTimeout runs a negative, NaN or over-long delay at once.
  if (typeof retry === "number" && !(retry >= 0)) retry = false;
  const delay = typeof retryDelay === "number" && !(retryDelay >= 0 && retryDelay <= MAX_TIMEOUT_MS) ? 0 : (retryDelay ?? exponentialDelay);
  const data: RetryData = {
    // Infinity is TanStack's "retry for ever": as data (a finite count on the wire), that is `true`.
    ...(typeof retry === "boolean" ? { retry } : typeof retry === "number" ? { retry: retry === Infinity ? true : retry } : {}),
    ...(delay === exponentialDelay ? { delayMs: "exponential" as const } : typeof delay === "number" ? { delayMs: delay } : {}),
  };
  // As TanStack's retryer: retryDelay first, on every failure (the last one too), given the error
  // retry then gets. The pause after it (every caller asks retry first) uses what it said.
  let ms: number;
  return {
    retry: (count, error) => {
      const e = asError(error);
      ms = typeof delay === "function" ? delay(count, e) : delay;
      return retry === true || (typeof retry === "number" && count < retry) || (typeof retry === "function" && !!retry(count, e));
    },
    delayMs: () => ms,
    data,
  };
}

const EXPECTED_RETRY =
  "true/false, a number of retries (>= 0), a function (failureCount, error) => boolean, or a RetryPolicy { retry, delayMs }";

/**
 * `ensure`'s `retry` / `retryDelay` as the policy the claimant runs: a RetryPolicy as is, or
 * TanStack's values (what a TanStack user types). A shape that fits neither is bad input, thrown
 * before anything is written, never a fetch that silently skips its retries.
 */
export function resolveRetry(
  retry: unknown,
  retryDelay: unknown,
  asError: (error: OutcomeError) => unknown = (error) => error,
): RetryPolicy | undefined {
  if (retryDelay !== undefined && !(typeof retryDelay === "function" || isCount(retryDelay, false)))
    throw new SharedFetchInputError(
      `shared-fetch: retryDelay must be a number of milliseconds (>= 0) or a function (failureCount, error) => number, got ${describe(retryDelay)}`,
    );
  if (retry === undefined) {
    // The store retries nothing by default: a delay alone would do nothing, which is not what was meant.
    if (retryDelay !== undefined)
      throw new SharedFetchInputError(
        `shared-fetch: retryDelay ${describe(retryDelay)} was given without retry (the store retries nothing by default)`,
      );
    return undefined;
  }
  if (typeof retry === "boolean" || typeof retry === "function" || isCount(retry, true))
    return tanstackRetry(retry as RetryOption<unknown>, retryDelay as RetryDelayOption<unknown> | undefined, asError);
  if (isPolicy(retry)) {
    if (retry.data !== undefined && !isRetryData(retry.data))
      throw new SharedFetchInputError(
        `shared-fetch: a RetryPolicy's data must be { retry?: boolean | finite count, delayMs?: finite ms | "exponential", pauseOffline?: boolean }, got ${describe(retry.data)}`,
      );
    if (retryDelay !== undefined)
      throw new SharedFetchInputError(
        `shared-fetch: retryDelay ${describe(retryDelay)} was given with a RetryPolicy, which has its own delayMs`,
      );
    return retry;
  }
  throw new SharedFetchInputError(`shared-fetch: retry must be ${EXPECTED_RETRY}, got ${describe(retry)}`);
}

function isCount(value: unknown, infinite: boolean): value is number {
  return typeof value === "number" && value >= 0 && (Number.isFinite(value) || (infinite && value === Infinity));
}

function isPolicy(value: unknown): value is RetryPolicy {
  if (typeof value !== "object" || value === null) return false;
  const { retry, delayMs } = value as Record<string, unknown>;
  return typeof retry === "function" && typeof delayMs === "function";
}

/** RetryData crosses a port as is: a count must be finite there. */
export function isRetryData(value: unknown): value is RetryData {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { retry, delayMs } = value as Record<string, unknown>;
  const { pauseOffline } = value as Record<string, unknown>;
  return (
    (retry === undefined || typeof retry === "boolean" || isCount(retry, false)) &&
    (delayMs === undefined || delayMs === "exponential" || isCount(delayMs, false)) &&
    (pauseOffline === undefined || typeof pauseOffline === "boolean")
  );
}

async function ask<T>(fn: () => T | Promise<T>, fallback: T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    // A throwing policy stops the retries; the failure is still recorded.
    queueMicrotask(() => console.error("shared-fetch: retry policy failed", error));
    return fallback;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal.reason));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal.reason));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds or the policy gives up; resolves with the last outcome only
 * (an error is recorded once, after the last attempt). Rejects with AbortError when `signal`
 * aborts, during an attempt or a pause. `failed` hears each failure that is retried (the count so
 * far, as TanStack's `failureCount` reads after it), the last one not: its error is the outcome.
 */
export async function withRetries(
  attempt: () => Promise<Outcome>,
  policy: RetryPolicy,
  signal: AbortSignal,
  failed?: (failures: number, error: OutcomeError) => void,
): Promise<Outcome> {
  for (let failures = 0; ; failures++) {
    const outcome = await attempt();
    if (outcome.ok || signal.aborted) return outcome;
    const { error } = outcome;
    if ((await ask(() => policy.retry(failures, error), false)) !== true) return outcome;
    failed?.(failures + 1, error);
    const delay = await ask(() => policy.delayMs(failures, error, signal), 0);
    await sleep(Number.isFinite(delay) && delay > 0 ? delay : 0, signal);
  }
}
