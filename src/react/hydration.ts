"use client";
// A client module (React Server Components): a hook.
import { useSyncExternalStore } from "react";

const noSubscribe = () => () => {};

/** True while React renders on the server or hydrates what the server rendered (then it re-renders with false). */
export const useHydrating = (): boolean =>
  useSyncExternalStore(
    noSubscribe,
    () => false,
    () => true,
  );

/**
 * The hooks' options as the server's store had them while React renders on the server or hydrates
 * what the server rendered (useSyncExternalStore's server snapshot; React re-renders once
 * hydration is done): without the result recorded in this browser as `initialData` (a return
 * visit's doc holds what the server's did not: rendered, it would not match the server's HTML). It
 * reaches the query right after, from the store. An `initialData` of the caller's own stays.
 */
export function useHydratable<O extends object>(opts: O, given: { initialData?: unknown; initialDataUpdatedAt?: unknown } | undefined): O {
  const hydrating = useHydrating();
  // The caller's own only (a function of theirs that finds none falls back to the record: not now).
  return hydrating ? { ...opts, initialData: given?.initialData, initialDataUpdatedAt: given?.initialDataUpdatedAt } : opts;
}
