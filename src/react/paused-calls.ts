import type { Mutation, MutationCacheNotifyEvent } from "@tanstack/react-query";

/**
 * Calls TanStack paused (offline, or queued behind their scope): a persister may have saved them for
 * other tabs to restore, so sharedMutationFn names them as it names the restored copies. Only the
 * mutation cache's events tell it: once running, the state forgets. `pausedFirst` paused before
 * their first run; `pausedRetry` paused before a retry, after a failure.
 */
export const pausedFirst = new WeakSet<Mutation>();
export const pausedRetry = new WeakSet<Mutation>();

/**
 * Who else hears each event of the listener below: sharedMutationFn, once made, sets it (it follows
 * useMutation's observers). Here, not there: an app that never makes one ships none of that.
 */
export const mutationEvents: { hear?: (event: MutationCacheNotifyEvent) => void } = {};

/** A mutation cache listener: a call paused with no failure yet has not run. */
export function notePaused(event: MutationCacheNotifyEvent): void {
  mutationEvents.hear?.(event);
  const m = event.mutation;
  if (m?.state.isPaused) (m.state.failureCount ? pausedRetry : pausedFirst).add(m);
}
