import {
  notifyManager,
  type Mutation,
  type MutationCacheNotifyEvent,
  type MutationObserver,
  type QueryClient,
} from "@tanstack/react-query";
import type { SharedFetchStoreExtras } from "../core/store-extras.ts";
import type { ClaimView, SharedFetchStore, SharedRequest } from "../core/types.ts";
import { mutationEvents } from "./paused-calls.ts";
import { errorOf, type SharedFetchError } from "./shared-error.ts";

/**
 * The useMutation observers of each call, as the mutation cache tells them (heard through the
 * bridge's listener, paused-calls.ts): TanStack's Mutation keeps its own list private, and only
 * they render a `failed` action into useMutation's result.
 */
const observers = new WeakMap<Mutation, Set<MutationObserver>>();

function hear(event: MutationCacheNotifyEvent): void {
  if (event.type != "observerAdded" && event.type != "observerRemoved") return;
  const { mutation, observer } = event;
  const mine = observers.get(mutation) ?? new Set();
  observers.set(mutation, mine);
  if (event.type == "observerAdded") mine.add(observer);
  else mine.delete(observer);
}

/** Starts following useMutation's observers (once per page, when a sharedMutationFn is made). */
export function followMutationObservers(): void {
  mutationEvents.hear = hear;
}

/**
 * While a call waits on its request, each failure the claim retries (sharedMutationFn's `retry`, in
 * this tab's claim or in another's that the call joined) shows in the call's `failureCount` and
 * `failureReason`, as TanStack's retryer shows useMutation's own retries; the error then counts
 * every attempt. Before, both read 0 until the error, which counted 1. A tab with a replica of its
 * own reads on the store's inspection notices, not by subscribing: a subscriber of a key takes over
 * work another replica abandoned there, and would send again a dead tab's POST. A SharedWorker tab
 * (`hears`) subscribes, only while the call waits: its notices would have the worker send its whole
 * inspection, and the worker's store, where the call's own ask waits, takes over nothing more for
 * the subscription while that ask stands. `given`: the error this call's retry functions were last
 * given, shown as that failure's reason when it says the same (as TanStack's retryer). Returns the stop.
 */
export function showClaimFailures(
  store: SharedFetchStore,
  req: SharedRequest,
  mutation: Mutation,
  client: QueryClient,
  given: () => SharedFetchError | undefined,
): (() => void) | undefined {
  const extras = store as Partial<SharedFetchStoreExtras>;
  if (!extras.onInspect) return undefined;
  let shown = "";
  return (extras.hears ? store.subscribe.bind(store, req) : extras.onInspect.bind(store))(() => {
    let failed: ClaimView["failed"];
    try {
      failed = store.snapshot(req).claim?.failed;
    } catch {
      return; // bad input: the ask has rejected with it already
    }
    const seen = failed && `${failed.n} ${failed.status} ${failed.message}`;
    if (!failed || seen === shown || mutation.state.status != "pending") return;
    shown = seen!;
    const error = errorOf(failed, given());
    const action = { type: "failed", failureCount: failed.n, error } as const;
    // TanStack's error action adds the last failure to this count.
    mutation.state = { ...mutation.state, failureCount: failed.n, failureReason: error };
    notifyManager.batch(() => {
      observers.get(mutation)?.forEach((observer) => observer.onMutationUpdate(action));
      client.getMutationCache().notify({ mutation, type: "updated", action });
    });
  });
}
