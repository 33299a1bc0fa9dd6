import { ensureOptions, retryOptions } from "../core/store-options.ts";
import type { WaitOptions } from "./remote-waiters.ts";

/**
 * An ask's options as a tab sends them to the worker, checked as the store checks them: a
 * refetch's skipInFlight, an ensure's maxAgeMs (a program's refetch keeps it too), its retry policy.
 */
export function waitOptions(
  opts: unknown,
  fallbackLease: number,
  fn: "ensure" | "refetch" | "ensureProgram" | "refetchProgram",
): WaitOptions {
  const { signal, leaseMs, skipInFlight, maxAgeMs, askedAt } = ensureOptions(opts, fallbackLease, fn);
  const retry = retryOptions(opts);
  return {
    leaseMs,
    // When the app asked (the hooks say; else now): the worker, or the tab's own replica, judges it as of then.
    askedAt: askedAt ?? Date.now(),
    ...(signal ? { signal } : {}),
    ...(retry ? { retry } : {}),
    ...(fn !== "ensure" && fn !== "ensureProgram" && skipInFlight ? { skipInFlight } : {}),
    ...(fn !== "refetch" && maxAgeMs !== undefined ? { maxAgeMs } : {}),
  };
}
