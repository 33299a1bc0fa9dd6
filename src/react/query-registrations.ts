import type { Query, QueryClient } from "@tanstack/react-query";
import type { SharedFetchStore } from "../core/types.ts";
import type { Recorded } from "./push.ts";

export type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;

/** What a shared query's options say about its work: the store, the work's key, how to watch its record. */
export type Registration = Recorded & {
  store: SharedFetchStore;
  /** The work's key in the store (a query key the caller chose may name other work later). */
  id: string;
  subscribe(listener: () => void, query: AnyQuery): () => void;
  /** How the recorded work reaches the query, where it is not one result (an infinite query's pages). */
  push?(client: QueryClient, query: AnyQuery): void;
  /**
   * Where the store does not hear of the work, asks it once what is recorded (see
   * SharedFetchStoreExtras.look), calling `done` with each answer; returns the end of the look.
   */
  look?(done: () => void, query: AnyQuery): (() => void) | undefined;
  /** How what a look found reaches the query, where it is not one result (a feed's chain). */
  put?(client: QueryClient, query: AnyQuery): void;
};

/**
 * Registrations by query function: sharedQueryOptions makes one per call (per store and URL when
 * the call has no options of its own), TanStack keeps it
 * in the options of the query and of each observer (spreads and defaulting copy it), and it goes
 * with them (a WeakMap: nothing to forget).
 */
const registrations = new WeakMap<object, Registration>();

export function registerQueryFn(queryFn: object, registration: Registration): void {
  registrations.set(queryFn, registration);
}

export function registrationOf(query: AnyQuery, store: SharedFetchStore): Registration | undefined {
  // A hydrated query has no query function of its own until an observer brings one.
  for (const options of [query.options, ...query.observers.map((o) => o.options)]) {
    const registration = typeof options.queryFn === "function" ? registrations.get(options.queryFn) : undefined;
    if (registration?.store === store) return registration;
  }
  return undefined;
}
