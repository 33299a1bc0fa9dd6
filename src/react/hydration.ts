import { useSyncExternalStore } from "react";

const noSubscribe = () => () => {};

/**
 * True while React renders on the server or hydrates what the server rendered, false after: what
 * renders then must match the server's HTML. React re-renders once hydration is done.
 */
export function useHydrating(): boolean {
  return useSyncExternalStore(
    noSubscribe,
    () => false,
    () => true,
  );
}

/**
 * The options as the server's store had them while hydrating: without the result recorded in this
 * browser as `initialData` (a return visit's doc holds what the server's did not: rendered, it
 * would not match the server's HTML). It reaches the query right after, from the store. An
 * `initialData` of the caller's own stays.
 */
export function hydratable<O extends object>(opts: O, hydrating: boolean, given: { initialData?: unknown } | undefined): O {
  if (!hydrating || given?.initialData !== undefined) return opts;
  const copy = { ...opts } as Record<string, unknown>;
  delete copy.initialData;
  delete copy.initialDataUpdatedAt;
  return copy as O;
}
