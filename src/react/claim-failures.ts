import type { Query } from "@tanstack/react-query";
import type { Snapshot } from "../core/types.ts";
import { SharedFetchError } from "./shared-error.ts";

/** The claim's failures last shown in each fetching query: their count, status and reason ("0" before any). */
const shown = new WeakMap<object, string>();

/**
 * A fetching query shows the failures of the claim it waits on, as the claimant's own query shows
 * them (retryPolicy in demand.ts): a tab or a QueryClient that joined the claim, a SharedWorker tab
 * whose worker retries by itself. Only a change of the claim's failures is shown, so that a
 * snapshot read before the claimant's rewrite never sets back a count its own policy just raised; a
 * new claim (a takeover) starts again from its own count, and one of the same count shows its own
 * reason. No claim: the outcome is on its way through the query function, and TanStack's error
 * action adds the last failure to the count shown.
 */
export function showClaimFailures(query: Query<unknown, Error, unknown, readonly unknown[]>, snapshot: () => Snapshot): void {
  const { state } = query;
  // Read only for a fetching query: a push into an idle one is no read of the record (bridge.ts).
  if (state.fetchStatus == "idle") return void shown.delete(query);
  const { claim } = snapshot();
  const failed = claim?.failed;
  const n = failed?.n ?? 0;
  const seen = failed ? `${n} ${failed.status} ${failed.message}` : "0";
  if (!claim || seen === (shown.get(query) ?? "0")) return;
  shown.set(query, seen);
  // The reason as the joined tab reads it (its status too): one the query shows already is kept.
  const reason = state.fetchFailureReason as SharedFetchError | null;
  if (seen !== (reason ? `${state.fetchFailureCount} ${reason.status} ${reason.message}` : "0"))
    query.setState({ ...state, fetchFailureCount: n, fetchFailureReason: failed ? new SharedFetchError(failed) : null });
}
