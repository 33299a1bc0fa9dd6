import type { QueryCacheNotifyEvent, QueryClient } from "@tanstack/react-query";
import type { SharedFetchStore } from "../core/types.ts";
import { onGet, quiet } from "./cache-reads.ts";
import { showClaimFailures } from "./claim-failures.ts";
import { listenToQueryDevtools, noteSubscribed } from "./fetch-record.ts";
import { followJoins } from "./joined-keys.ts";
import { notePaused } from "./paused-calls.ts";
import { byDevtools, devtoolsHeld, heldBack, noteAction, pushRecorded, storeInitial } from "./push.ts";
import { registrationOf, type AnyQuery, type Registration } from "./query-registrations.ts";

/** A disabled query's look: the work asked about, its end, and whether an answer came or waits for the next render. */
type Look = { id: string; off?: (() => void) | undefined; answered?: true; due?: true };

type Watch = { id: string; off: () => void; registration: Registration };

/**
 * Results other replicas record reach one QueryClient's shared queries of one store, whichever hook
 * observes them (useQuery, useQueries, useSuspenseQuery or the package's hooks): a query is watched
 * while it has an enabled observer (a store subscription shows the key, which a disabled query must
 * not), and re-checked when its record or its own state changes. A query with no observer is not
 * watched (a watch would be demand: it finishes work another replica abandoned) but read: what is
 * recorded goes in as TanStack hands it out (getQueryData, a mount), so it is current with no work
 * per doc update. It lives while someone holds it (a SharedFetchProvider, a hook) or the cache
 * holds a query of the store.
 */
class Bridge {
  private holders = 0;
  private disposed = false;
  /** Queries of this store in the cache (watched or not). */
  private readonly mine = new Set<AnyQuery>();
  private readonly watches = new Map<AnyQuery, Watch>();
  private readonly due = new Set<AnyQuery>();
  /** The work each disabled query asked about (look): once, not again on each render that updates its options. */
  private readonly looked = new WeakMap<AnyQuery, Look>();
  /** The ask each unobserved query's read sent its worker (see read). */
  private readonly reads = new WeakMap<AnyQuery, () => void>();
  private readonly stopCache: () => void;
  private readonly stopReads: () => void;
  private readonly stopMutations: () => void;

  constructor(
    private readonly client: QueryClient,
    private readonly store: SharedFetchStore,
    private readonly gone: () => void,
  ) {
    const cache = client.getQueryCache();
    // Which keys the store's asks wait on another replica's claim of (a feed shows those claims' failures).
    followJoins(store);
    this.stopCache = cache.subscribe((event) => this.onEvent(event));
    this.stopReads = onGet(cache, (query) => this.read(query));
    // The last pending mutation settling ends each hold (heldBack), once: kept, it held results back
    // again during any later mutation, unless a result had come in while the first one ran.
    this.stopMutations = client.getMutationCache().subscribe(() => {
      if (!client.isMutating()) for (const query of this.mine) if (heldBack.delete(query) && this.watches.has(query)) this.schedule(query);
    });
    for (const query of cache.getAll()) this.reconcile(query as AnyQuery);
  }

  hold(): () => void {
    this.holders++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holders--;
      this.disposeIfUnused();
    };
  }

  disposeIfUnused(): void {
    if (this.disposed || this.holders > 0 || this.mine.size > 0) return;
    this.disposed = true;
    this.stopCache();
    this.stopReads();
    this.stopMutations();
    for (const query of [...this.watches.keys()]) this.unwatch(query);
    this.gone();
  }

  private onEvent(event: QueryCacheNotifyEvent): void {
    const query = event.query as AnyQuery;
    switch (event.type) {
      case "removed":
        devtoolsHeld.delete(query);
        this.looked.get(query)?.off?.();
        this.reads.get(query)?.();
        this.mine.delete(query);
        this.unwatch(query);
        return this.disposeIfUnused();
      // The query's own state changed (its fetch ended, an invalidation, a set): re-check it, and
      // whether it is still enabled (`enabled` may be a function of its state).
      case "updated": {
        // Back to its initial state (resetQueries): what is recorded now, if newer, goes in at once,
        // watched or not, before the refetch that follows starts (it would keep it out meanwhile).
        const registration = registrationOf(query, this.store);
        // Only by the bridge of the query's store, which hears of its removal (a plain query's bridge may be gone by then).
        if (registration) devtoolsHeld[byDevtools(query) ? "add" : "delete"](query);
        const reset = noteAction(query, event.action, registration, this.client.isMutating() > 0) && registration;
        this.reconcile(query);
        if (reset) this.push(query, reset);
        else if (this.watches.has(query)) this.schedule(query);
        return;
      }
      case "observerResultsUpdated":
        return;
      default:
        // added, observerAdded, observerRemoved, observerOptionsUpdated (enabled may have changed)
        if (event.type === "observerAdded") noteSubscribed(event.observer, query);
        this.reconcile(query);
    }
  }

  /**
   * An unobserved query of this store, about to be read: what is recorded goes in if newer (never
   * over the app's later set, see pushRecorded). Where the store does not hear of the key (a
   * SharedWorker tab), what it holds is as of its last answer: it asks its worker (a read), and the
   * answer goes in for the next read.
   */
  private read(query: AnyQuery): void {
    const registration = this.unobserved(query);
    if (!registration) return;
    this.push(query, registration);
    // A feed's pages are asked page by page (put): its reads take what the tab holds.
    if (registration.put) return;
    // The worker's answer comes later: the query may be observed (watched) or gone by then. One
    // ask per query: a read joins the open one, then ends its own part in it, so reads in a row
    // send one message; the ask stays open, told of each newer result, until the query goes.
    const before = this.reads.get(query);
    const off = registration.look?.(() => this.unobserved(query) === registration && this.push(query, registration), query);
    before?.();
    if (off) this.reads.set(query, off);
  }

  private unobserved(query: AnyQuery): Registration | undefined {
    return query.observers.length || !this.mine.has(query) ? undefined : registrationOf(query, this.store);
  }

  private reconcile(query: AnyQuery): void {
    // A query already removed may still report (its fetch settling): it is no longer this cache's.
    // Looked up quietly: a cache event is no read (it would push, or ask a SharedWorker tab's worker).
    const cache = this.client.getQueryCache();
    quiet.add(cache);
    const cached = cache.get(query.queryHash) === query;
    quiet.delete(cache);
    const registration = cached ? registrationOf(query, this.store) : undefined;
    if (!registration) {
      this.unwatch(query);
      if (!cached && this.mine.delete(query)) this.disposeIfUnused();
      return;
    }
    this.mine.add(query);
    if (!query.isActive()) {
      this.unwatch(query);
      if (query.state.data === undefined && query.observers.length) this.look(query, registration);
      return;
    }
    // Shown, enabled, with the result a replica recorded (its initialData: nothing fetched in this
    // tab), it counts as fetched once no pane observes it, as a plain query that fetched that result:
    // refetchQueries and invalidateQueries ("all", "inactive") pass over a query TanStack deems
    // never fetched. Until a reset gives it its initial state back (noteAction).
    if (storeInitial.get(query.options.initialData as object)?.()) query.isDisabled = () => query.observers.length > 0 && !query.isActive();
    if (this.watches.get(query)?.id === registration.id) return;
    this.unwatch(query);
    const off = registration.subscribe(() => this.schedule(query), query);
    this.watches.set(query, { id: registration.id, off, registration });
    this.schedule(query);
  }

  /**
   * A disabled query shows what is recorded (its initialData, read again at each render while it
   * holds no data): a SharedWorker tab that does not hear of the key has none to give at once, and
   * asks its worker once (a round trip, no request). The answer shows at once; a result the worker
   * tells of later, at the query's next render, as its initialData would show it.
   */
  private look(query: AnyQuery, registration: Registration): void {
    const show = () => query.state.data === undefined && (registration.put ?? pushRecorded)(this.client, query, registration);
    const known = this.looked.get(query);
    if (known?.id === registration.id) {
      if (known.due) {
        known.due = undefined;
        show();
      }
      return;
    }
    known?.off?.();
    const look: Look = { id: registration.id };
    this.looked.set(query, look);
    look.off = registration.look?.(() => (look.answered ? (look.due = true) : ((look.answered = true), show())), query);
  }

  private unwatch(query: AnyQuery): void {
    const watch = this.watches.get(query);
    if (!watch) return;
    this.watches.delete(query);
    watch.off();
  }

  /**
   * Decided a microtask later: the store notifies from inside doc transactions, TanStack from inside
   * its own dispatch; several notices of one moment make one check.
   */
  private schedule(query: AnyQuery): void {
    if (this.due.has(query)) return;
    this.due.add(query);
    queueMicrotask(() => {
      this.due.delete(query);
      const watch = this.watches.get(query);
      if (watch) this.push(query, watch.registration);
    });
  }

  /** What is recorded, into the query if newer; its own set hands the query out again (read), which it skips. */
  private push(query: AnyQuery, registration: Registration): void {
    // Data the app set while a mutation of this tab runs (an optimistic update) waits for it.
    // A state the Query devtools set stays until their Restore.
    if ((heldBack.has(query) && this.client.isMutating()) || byDevtools(query)) return;
    quiet.add(query);
    try {
      (registration.push ?? pushRecorded)(this.client, query, registration);
      showClaimFailures(query, () => registration.snapshot(query));
    } catch (error) {
      // A listener must not throw into the store or TanStack; the next notice checks again.
      console.error("shared-fetch: could not put a recorded result into the query cache", error);
    } finally {
      quiet.delete(query);
    }
  }
}

const bridges = new WeakMap<QueryClient, Map<SharedFetchStore, Bridge>>();

function bridgeOf(client: QueryClient, store: SharedFetchStore): Bridge {
  let byStore = bridges.get(client);
  if (!byStore) {
    bridges.set(client, (byStore = new Map()));
    listenToQueryDevtools();
    // Once per client, for as long as it lives: a call must be seen pausing, before it runs.
    client.getMutationCache().subscribe(notePaused);
  }
  const map = byStore;
  let bridge = map.get(store);
  if (!bridge) {
    const made: Bridge = new Bridge(client, store, () => {
      if (map.get(store) === made) map.delete(store);
    });
    map.set(store, (bridge = made));
  }
  return bridge;
}

/** Holds the bridge of a client and a store (SharedFetchProvider, the hooks); returns the release. */
export function holdBridge(client: QueryClient, store: SharedFetchStore): () => void {
  return bridgeOf(client, store).hold();
}

/**
 * From a shared query function (with TanStack's `client`): a query rendered by TanStack's own hooks
 * outside any SharedFetchProvider that sees its client still gets the results other replicas record.
 * From a SharedFetchProvider's render: its children's queries, made before its effect holds the
 * bridge, are read as TanStack hands them out (a feed's first render shows a restored chain's
 * failed page). Unheld, the bridge lasts while the cache holds a query of the store, judged a
 * microtask later (a render React drops leaves none behind).
 */
export function ensureBridge(client: QueryClient, store: SharedFetchStore): void {
  const bridge = bridgeOf(client, store);
  queueMicrotask(() => bridge.disposeIfUnused());
}
