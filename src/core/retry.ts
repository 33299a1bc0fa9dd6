import { abortError } from "./errors.ts";
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
  delayMs(failureCount: number, error: OutcomeError): number | Promise<number>;
  /** The same policy as plain data, where it is data: then it crosses a port without asking back. */
  data?: RetryData;
};

/**
 * TanStack's `retry` when it is a boolean or a count, its `retryDelay` when it is a number or
 * TanStack's default (`"exponential"`, exponentialDelay). An absent field is a function.
 */
export type RetryData = { retry?: boolean | number; delayMs?: number | "exponential" };

/** TanStack Query's default retryDelay. */
export const exponentialDelay = (failureCount: number): number => Math.min(1000 * 2 ** failureCount, 30_000);

export const NO_RETRY: RetryPolicy = { retry: () => false, delayMs: () => 0, data: { retry: false, delayMs: 0 } };

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
 * aborts, during an attempt or a pause.
 */
export async function withRetries(attempt: () => Promise<Outcome>, policy: RetryPolicy, signal: AbortSignal): Promise<Outcome> {
  for (let failures = 0; ; failures++) {
    const outcome = await attempt();
    if (outcome.ok || signal.aborted) return outcome;
    const { error } = outcome;
    if ((await ask(() => policy.retry(failures, error), false)) !== true) return outcome;
    const delay = await ask(() => policy.delayMs(failures, error), 0);
    await sleep(Number.isFinite(delay) && delay > 0 ? delay : 0, signal);
  }
}
