import type { OutcomeError } from "../core/fetcher.ts";
import { exponentialDelay, pausingWhileOffline, type OnlineSource, type RetryPolicy } from "../core/retry.ts";

/**
 * A tab's retry policy as it crosses the port to the SharedWorker: data as data (TanStack's
 * boolean or count `retry`, a number or the default `retryDelay`), a function as "ask": the
 * worker then asks the tab for its verdict after each failed attempt.
 */
export type WireRetry = { retry: boolean | number | "ask"; delayMs: number | "exponential" | "ask"; pauseOffline?: boolean };
export type RetryAnswer = { retry: boolean; delayMs: number };

/** How long the worker waits for a tab's verdict: no answer (a frozen or dead tab) means no retry. */
export const RETRY_ASK_MS = 2000;

const NO: RetryAnswer = { retry: false, delayMs: 0 };

export function retryToWire(policy: RetryPolicy | undefined): WireRetry | undefined {
  if (!policy) return undefined;
  const wire: WireRetry = { retry: policy.data?.retry ?? "ask", delayMs: policy.data?.delayMs ?? "ask" };
  return policy.data?.pauseOffline ? { ...wire, pauseOffline: true } : wire;
}

export function isWireRetry(v: unknown): v is WireRetry {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const { retry, delayMs, pauseOffline } = v as Record<string, unknown>;
  const count = (x: unknown) => typeof x === "number" && Number.isFinite(x) && x >= 0;
  return (
    (typeof retry === "boolean" || count(retry) || retry === "ask") &&
    (count(delayMs) || delayMs === "exponential" || delayMs === "ask") &&
    (pauseOffline === undefined || typeof pauseOffline === "boolean")
  );
}

/** The tab's side: its policy's verdict on one failure (a throwing policy stops the retries). */
export async function answerRetry(tabPolicy: RetryPolicy | undefined, failureCount: number, error: OutcomeError): Promise<RetryAnswer> {
  // The worker waits for the connection itself: an answer held until then would be taken for "no".
  const policy = tabPolicy?.offline?.base ?? tabPolicy;
  if (!policy) return NO;
  try {
    if ((await policy.retry(failureCount, error)) !== true) return NO;
    const delay = Number(await policy.delayMs(failureCount, error));
    return { retry: true, delayMs: Number.isFinite(delay) && delay > 0 ? delay : 0 };
  } catch (e) {
    console.error("shared-fetch: retry policy failed", e);
    return NO;
  }
}

/**
 * The worker's side: a policy that runs data itself and asks the tab (`ask`, undefined = no
 * answer) for what is a function there, once per failure; `paused` hears its offline wait.
 */
export function retryFromWire(
  wire: WireRetry | undefined,
  ask: (failureCount: number, error: OutcomeError) => Promise<RetryAnswer | undefined>,
  paused?: (on: boolean) => void,
): RetryPolicy | undefined {
  if (!wire) return undefined;
  const answers = new Map<number, Promise<RetryAnswer>>();
  const answer = (count: number, error: OutcomeError): Promise<RetryAnswer> => {
    let a = answers.get(count);
    if (!a) answers.set(count, (a = ask(count, error).then((x) => x ?? NO)));
    return a;
  };
  const { retry, delayMs } = wire;
  const counted = (count: number) => retry === true || (typeof retry === "number" && count < retry);
  const policy: RetryPolicy = {
    // As TanStack's retryer: the tab's retryDelay is asked on every failure, the last one too.
    retry: (count, error) =>
      retry === "ask" || delayMs === "ask"
        ? answer(count, error).then((a) => (retry === "ask" ? a.retry : counted(count)))
        : counted(count),
    delayMs: (count, error) =>
      delayMs === "ask" ? answer(count, error).then((a) => a.delayMs) : delayMs === "exponential" ? exponentialDelay(count) : delayMs,
  };
  return wire.pauseOffline ? pausingWhileOffline(policy, navigatorOnline, paused) : policy;
}

/** The worker's own view of the network: its navigator and the `online` / `offline` events. */
const navigatorOnline: OnlineSource = {
  isOnline: () => (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine !== false,
  subscribe: (listener) => {
    const target = globalThis as unknown as Partial<EventTarget>;
    if (typeof target.addEventListener !== "function") return () => {};
    const on = () => listener(true);
    const off = () => listener(false);
    target.addEventListener("online", on);
    target.addEventListener("offline", off);
    return () => {
      target.removeEventListener?.("online", on);
      target.removeEventListener?.("offline", off);
    };
  },
};
