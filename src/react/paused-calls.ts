import type { Mutation, MutationCacheNotifyEvent } from "@tanstack/react-query";

/**
 * Calls TanStack paused before their first run (offline, or queued behind their scope): a persister
 * may have saved them for other tabs to restore, so sharedMutationFn names them as it names the
 * restored copies. Only the mutation cache's events tell it: once running, the state forgets.
 */
export const pausedFirst = new WeakSet<Mutation>();

/** A mutation cache listener: a call paused with no failure yet has not run. */
export function notePaused(event: MutationCacheNotifyEvent): void {
  const m = event.mutation;
  if (m?.state.isPaused && !m.state.failureCount) pausedFirst.add(m);
}
