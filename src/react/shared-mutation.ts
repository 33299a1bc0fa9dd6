import { hashKey, onlineManager, type Mutation, type MutationFunctionContext } from "@tanstack/react-query";
import { shownValue } from "../core/errors.ts";
import { isPlainObject } from "../core/request.ts";
import { warnUnknownOptions } from "../core/options.ts";
import { pausingWhileOffline, resolveRetry, type OnlineSource, type RetryDelayOption, type RetryOption } from "../core/retry.ts";
import type { SharedFetchStore, SharedRequest } from "../core/types.ts";
import { asQueryError, SharedFetchError } from "./shared-error.ts";
import { unwrap } from "./shared-query-fn.ts";
import { toRequest } from "./url.ts";
import { requireStore } from "./require-store.ts";
import { pausedFirst, pausedRetry } from "./paused-calls.ts";
import { followMutationObservers, showClaimFailures } from "./mutation-failures.ts";

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
 * own `retry` calls this function again, which is a new revision with a new key. `leaseMs` bounds the
 * claim as sharedQueryOptions' does.
 */
export function sharedMutationFn<TVariables = void, TData = unknown>(
  store: SharedFetchStore,
  request: (variables: TVariables) => string | SharedRequest,
  options?: {
    retry?: RetryOption<SharedFetchError> | undefined;
    retryDelay?: RetryDelayOption<SharedFetchError> | undefined;
    leaseMs?: number | undefined;
  },
): (variables: TVariables, context?: MutationFunctionContext) => Promise<TData> {
  requireStore("sharedMutationFn", store);
  if (options != null && typeof options !== "object")
    throw new TypeError(`sharedMutationFn: the options must be an object { retry, retryDelay, leaseMs }, got ${shownValue(options)}`);
  // `useMutation`'s own options here (`onSuccess`, `retries`) were told of only when the mutation
  // ran, as store.refetch's, whose other options (a signal, maxAgeMs) a mutation would misuse.
  warnUnknownOptions("sharedMutationFn", options, { retry: 0, retryDelay: 0, leaseMs: 0 });
  const { retry, retryDelay, leaseMs } = options ?? {};
  // Read as TanStack's retryer reads them, as for queries: a negative or NaN count retries nothing,
  // such a delay retries at once. The store refuses them, and every call failed unsent.
  const count = typeof retry === "number" && !(retry >= 0) ? false : retry;
  // useMutation retries nothing by default and then never reads a retryDelay: the store refused one
  // given alone, so every call failed unsent. One of another type is still refused, naming it.
  const delay =
    retry === undefined && (typeof retryDelay === "number" || typeof retryDelay === "function")
      ? undefined
      : typeof retryDelay === "number" && !(retryDelay >= 0 && retryDelay < Infinity)
        ? 0
        : retryDelay;
  // A request given as it is (a URL, `{ url, method }`) failed only when the mutation ran, as
  // "request is not a function".
  if (typeof request !== "function")
    throw new TypeError(`sharedMutationFn: the second argument must be a function (variables) => request, got ${shownValue(request)}`);
  followMutationObservers();
  const made = Date.now();
  const fn = async (variables: TVariables, context?: MutationFunctionContext): Promise<TData> => {
    // TanStack passes one context to every attempt of a call: a retry is told by it, not guessed
    // among the equal calls pending beside it.
    const again = !!context && calls.has(context);
    const mutation = again ? calls.get(context!) : found(fn, variables, context);
    if (context) calls.set(context, mutation);
    // Named from its first run if restored or paused before it, and anew at each retry paused
    // before it ran, when a persister may have saved it for other tabs: each resumes that pause.
    const repaused = !!mutation && pausedRetry.delete(mutation);
    const naming = again ? repaused : !!mutation && (mutation.state.submittedAt < made || pausedFirst.has(mutation));
    if (naming) names.set(mutation!, callIdOf(mutation!, context!));
    let stop: (() => void) | undefined;
    try {
      // Refused here as the store refuses it (a SharedFetchError naming it); outside networkMode
      // "always", a retry waits while onlineManager says offline, as useMutation's own retryer
      // waits: an offline browser's failures neither use up the retries nor end in an error.
      // Its functions get the recorded failure as a SharedFetchError, as a query's do and as
      // TanStack's retryer gives useMutation's own: one per failure, to retryDelay and retry alike.
      let given: SharedFetchError | undefined;
      const policy = resolveRetry(count, delay, (e) => (given = new SharedFetchError(e)));
      const opts = {
        retry: policy && mutation?.options.networkMode !== "always" ? pausingWhileOffline(policy, online) : policy,
        leaseMs,
      };
      const req = toRequest(request(variables));
      const callId = mutation && names.get(mutation);
      // The first ask after a pause joins the tab that sent it or takes its recorded outcome;
      // useMutation's own retry of it, after that outcome, is sent again (a new revision). Told by
      // the call, not the store's replicaId, which a worker's tab learns only once connected.
      const call = callId && isPlainObject(req) ? { ...req, callId } : req;
      const asked = callId && naming ? store.ensure(call, opts) : store.refetch(call, opts);
      if (mutation && context) stop = showClaimFailures(store, call, mutation, context.client, () => given);
      return unwrap<TData>(await asked, given);
    } catch (error) {
      throw asQueryError(error);
    } finally {
      stop?.();
    }
  };
  return fn;
}

const online: OnlineSource = { isOnline: () => onlineManager.isOnline(), subscribe: (listener) => onlineManager.subscribe(listener) };

/** The mutation each of TanStack's contexts was found to be, the mutations found, and each named one's name. */
const calls = new WeakMap<MutationFunctionContext, Mutation | undefined>();
const taken = new WeakSet<Mutation>();
const names = new WeakMap<Mutation, string>();

/**
 * What every tab restores alike: the mutation's key and `submittedAt`, its place among the calls
 * submitted in that millisecond under that key (a loop of `mutate`), in the order restored, and
 * the failures it had when paused. Those make each pause a call of its own: a copy saved while the
 * call waited for its retry takes that retry's outcome, never an earlier attempt's error, nor sends
 * again a retry that failed.
 */
function callIdOf(mutation: Mutation, context: MutationFunctionContext): string {
  const name = (m: Mutation) => hashKey([m.options.mutationKey ?? null, m.state.submittedAt]);
  const own = name(mutation);
  const same = context.client.getMutationCache().findAll({ predicate: (m) => name(m) === own });
  const failed = mutation.state.failureCount;
  return hashKey(failed ? [own, same.indexOf(mutation), failed] : [own, same.indexOf(mutation)]);
}

/**
 * The mutation TanStack runs `fn` for. Every tab that has it names it alike when it was submitted
 * before `fn` was made (restored by a persister, or paused since) or paused before a run (which the
 * persister may have saved for other tabs): its key and `submittedAt` then name the call in every
 * tab. A call of `fn` outside TanStack is none.
 */
function found(fn: unknown, variables: unknown, context: MutationFunctionContext | undefined): Mutation | undefined {
  // Equal calls resumed together are continued, then run, in the cache's order: the first not yet
  // found is this one. A call found before (in flight, or waiting for its retry) is not.
  const one = context?.client
    ?.getMutationCache?.()
    .getAll()
    .find(
      (m) =>
        m.options.mutationFn === fn &&
        m.state.status === "pending" &&
        !m.state.isPaused &&
        m.state.variables === variables &&
        !taken.has(m),
    );
  if (one) taken.add(one);
  return one;
}
