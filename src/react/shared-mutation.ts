import { shownValue } from "../core/errors.ts";
import type { RetryDelayOption, RetryOption } from "../core/retry.ts";
import type { SharedFetchStore, SharedRequest } from "../core/types.ts";
import { asQueryError } from "./shared-error.ts";
import { unwrap } from "./shared-query-options.ts";
import { toRequest } from "./url.ts";
import { requireStore } from "./require-store.ts";

/**
 * A `mutationFn` for TanStack's useMutation that sends the request through the store: each call is
 * a new revision of the request's key, so a POST/PUT carries an `Idempotency-Key` stable for that
 * revision (a takeover's duplicate carries the same one, invariant 12), and an identical call made
 * at the same moment in another tab joins it instead of sending twice. Resolves with the response
 * data; rejects with a SharedFetchError for an HTTP or network failure or bad input (its `cause`
 * the store's SharedFetchInputError). Invalidate the affected
 * shared queries in `onSuccess`: one tab refetches, every tab and device gets the new result.
 *
 * `retry` / `retryDelay` (TanStack's values) retry inside the claim, every attempt with the same
 * Idempotency-Key, so a server can tell a retry after a lost response from a new call; useMutation's
 * own `retry` calls this function again, which is a new revision with a new key.
 */
export function sharedMutationFn<TVariables = void, TData = unknown>(
  store: SharedFetchStore,
  request: (variables: TVariables) => string | SharedRequest,
  options?: { retry?: RetryOption | undefined; retryDelay?: RetryDelayOption | undefined },
): (variables: TVariables) => Promise<TData> {
  requireStore("sharedMutationFn", store);
  // A request given as it is (a URL, `{ url, method }`) failed only when the mutation ran, as
  // "request is not a function".
  if (typeof request !== "function")
    throw new TypeError(`sharedMutationFn: the second argument must be a function (variables) => request, got ${shownValue(request)}`);
  return async (variables) => {
    try {
      return unwrap<TData>(await store.refetch(toRequest(request(variables)), options));
    } catch (error) {
      throw asQueryError(error);
    }
  };
}
