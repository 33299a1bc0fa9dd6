import type { QueryFunctionContext } from "@tanstack/react-query";
import { SharedFetchInputError, shownValue } from "../core/errors.ts";
import { messageOf } from "../core/fetcher.ts";
import type { RetryPolicy } from "../core/retry.ts";
import type { SharedFetchStore, Snapshot } from "../core/types.ts";
import { ensureBridge } from "./bridge.ts";
import { registerQueryFn, type Registration } from "./query-registrations.ts";
import { queryOf } from "./fetch-record.ts";
import { asQueryError, errorOf, SharedFetchError } from "./shared-error.ts";

/** What a shared query function asks the store with: its signal, and the lease and retries `run` sets (a cancelQueries hold keeps them). */
export type Ask = { signal: AbortSignal; leaseMs?: number | undefined; retry?: RetryPolicy };

/**
 * Keys whose query function runs in this tab, per store, in all and per QueryClient. TanStack
 * consults `initialData` again on every options update while a query has no data; while our own
 * query function runs it delivers the result itself (as plain useQuery would), so `initialData`
 * must not slip it in first. A hook's view waits for its own client's function only: another
 * client's query on the same store (a second pane) delivers nothing to this one.
 */
type Counts = Map<string, number>;
const running = new WeakMap<object, { all: Counts; byClient: WeakMap<object, Counts> }>();

function count(counts: Counts, key: string, by: 1 | -1): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export function trackRunning<T>(store: object, client: object, key: string, work: () => Promise<T>): Promise<T> {
  let scope = running.get(store);
  if (!scope) running.set(store, (scope = { all: new Map(), byClient: new WeakMap() }));
  let mine = scope.byClient.get(client);
  if (!mine) scope.byClient.set(client, (mine = new Map()));
  const counts = [scope.all, mine];
  for (const m of counts) count(m, key, 1);
  return work().finally(() => counts.forEach((m) => count(m, key, -1)));
}

/** Whether a query function of this key runs for the store: in `client`'s cache, or in any. */
export function isRunning(store: object, key: string, client?: object): boolean {
  const scope = running.get(store);
  const counts = client === undefined ? scope?.all : scope?.byClient.get(client);
  return (counts?.get(key) ?? 0) > 0;
}

/**
 * Bad input as the query's error: the store's SharedFetchInputError (anything else thrown while
 * reading the input is one too), as a SharedFetchError whose `cause` it is.
 */
export function inputErrorOf(input: unknown, error: unknown): unknown {
  const typed =
    error instanceof SharedFetchInputError
      ? error
      : new SharedFetchInputError(`shared-fetch: ${shownValue(input)} is not a request: ${messageOf(error)}`, { cause: error });
  return asQueryError(typed);
}

/**
 * The query function of a shared query (a fetch or a program) around its `run`: bad input and a
 * forced fetch of a disabled query (`req` null) as its error, the bridge of the client it runs in
 * ensured (a tab that renders TanStack's own hooks outside a provider that sees its client still
 * receives the results other replicas record), the run counted (trackRunning) and its failure a
 * SharedFetchError. With `watch`, the bridge knows how to read the query's record.
 */
export function sharedQueryFn<T, R>(
  store: SharedFetchStore,
  id: string,
  input: { req: R | null; inputError: unknown; name: string },
  run: (ctx: QueryFunctionContext, req: R, ask: Ask) => Promise<T>,
  watch: (Omit<Registration, "store"> & Keeps) | undefined,
): (ctx: QueryFunctionContext) => Promise<T> {
  const { req, inputError, name } = input;
  const queryFn = async (ctx: QueryFunctionContext): Promise<T> => {
    if (inputError !== undefined) throw inputError;
    if (req === null) throw new SharedFetchError({ message: `shared-fetch: this query is disabled (its ${name} is null)` });
    ensureBridge(ctx.client, store);
    // TanStack aborts a query's fetch when its last observer goes, even when another mounts the
    // same key in that commit (a route change, a remount, StrictMode): its fetch, asked in the
    // same tick, must find this request still wanted and join it rather than send it again.
    const later = new AbortController();
    const ask: Ask = { signal: later.signal };
    ctx.signal.onabort = () =>
      queueMicrotask(() => {
        holdCancelled(ctx, watch, ask);
        later.abort();
      });
    return trackRunning(store, ctx.client, id, () => run(ctx, req, ask)).catch((error: unknown) => {
      // Its store was destroyed while it waited (the store's own AbortError, not ours), after the
      // provider was given another (the effect that made the old one destroys it as the new one
      // renders): the query's function now asks the new store, and finishes this fetch.
      const next = queryOf(ctx)?.options.queryFn;
      if ((error as Error | undefined)?.name !== "AbortError" || later.signal.aborted || next === queryFn || typeof next !== "function")
        throw asQueryError(error);
      return (next as typeof queryFn)(ctx);
    });
  };
  if (watch) registerQueryFn(queryFn, { store, ...watch });
  return queryFn;
}

/**
 * TanStack cancelled the fetch of a query that panes still observe, and started none in its place
 * (`cancelQueries`, as an optimistic update's onMutate does): the request claimed for the key (a
 * feed's: for the page it was asking; none yet, nothing is sent) goes on for them and for the replicas that joined it, until the query fetches again or is
 * observed no more. Aborted, another replica would take it over and send it again after the
 * optimistic set, and its answer, read before the mutation, would replace the optimistic data.
 */
function holdCancelled(ctx: QueryFunctionContext, watch: Keeps | undefined, ask: Ask) {
  const query = queryOf(ctx);
  if (!watch || !query?.getObserversCount() || query.state.fetchStatus !== "idle") return;
  const hold = new AbortController();
  // With the fetch's lease and retries: it takes the request over when its claimant dies.
  const kept = watch.hold({ ...ask, signal: hold.signal }, ctx.signal);
  if (!kept) return;
  // A microtask later: a fetch that starts now (a focus, a prefetch) joins it first.
  const off = onHeldQuery(ctx.client.getQueryCache(), query, () => queueMicrotask(() => hold.abort()));
  kept.then(off, off);
}

type Cache = ReturnType<QueryFunctionContext["client"]["getQueryCache"]>;
/**
 * The held queries of each cache, and what ends each hold, behind one cache listener: a listener
 * per hold made every event of a page that cancelled N queries (cancelQueries()) cost N calls.
 */
const held = new WeakMap<Cache, { off: () => void; ends: Map<object, Set<() => void>> }>();

/** Calls `end` when the query is removed, observed no more or fetches again; returns the release. */
function onHeldQuery(cache: Cache, query: object, end: () => void): () => void {
  let scope = held.get(cache);
  if (!scope) {
    const ends = new Map<object, Set<() => void>>();
    const off = cache.subscribe(({ query: q, type }) => {
      if (ends.has(q) && (type === "removed" || !q.getObserversCount() || q.state.fetchStatus !== "idle")) ends.get(q)!.forEach((f) => f());
    });
    held.set(cache, (scope = { off, ends }));
  }
  const { ends, off } = scope;
  const mine = ends.get(query) ?? new Set();
  ends.set(query, mine.add(end));
  // Each hold lets go once (its request settled): the last one out stops the listener.
  return () => {
    if (mine.delete(end) && !mine.size) ends.delete(query);
    if (!ends.size) {
      held.delete(cache);
      off();
    }
  };
}

/**
 * How a shared query keeps the request its cancelled fetch (TanStack's `signal`) was asking for:
 * the store's ask, or nothing when no claim stands for it (nothing was sent).
 */
export type Keeps = { hold(ask: Ask, signal: AbortSignal): Promise<unknown> | undefined };

/**
 * The latest recorded outcome as TanStack wants it: the data, or a thrown SharedFetchError; `given`
 * (the one this fetch's retry functions were last given) when it says the same.
 */
export function unwrap<T>(snap: Snapshot, given?: SharedFetchError): T {
  if (snap.error) throw errorOf(snap.error, given);
  return snap.data as T;
}
