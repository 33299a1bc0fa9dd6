// Server-safe (no hooks, no context): a server component may build these options and prefetch
// them; useProgram, the hook, is in use-program.ts, a client module.
import { queryOptions, replaceEqualDeep, type QueryFunctionContext, type QueryKey, type UseQueryOptions } from "@tanstack/react-query";
import { messageOf } from "../core/fetcher.ts";
import { hashKey } from "../core/key.ts";
import { warnRequestFields } from "../core/options.ts";
import { normalizeProgramRequest } from "../core/program-work.ts";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import { ASKED_AT } from "../core/store-options.ts";
import type { Program, ProgramRequest, SharedFetchStore, Snapshot } from "../core/types.ts";
import { demandOf, pastRecordedError, pastShownError, retryPolicy, type Given } from "./demand.ts";
import { notingDisabled, queryOf, recordingBehavior, takeFetch } from "./fetch-record.ts";
import { markDelivered, shownSince } from "./push.ts";
import type { SharedFetchError } from "./shared-error.ts";
import { mayShowRecorded, orRecorded } from "./recorded-initial-data.ts";
import { inputErrorOf, sharedQueryFn, unwrap, type Ask } from "./shared-query-fn.ts";
import type { SharedQueryOptions, SharedQueryOptionsInput } from "./shared-query-options.ts";
import { absoluteUrl } from "./url.ts";
import { requireStore } from "./require-store.ts";

/** A resolved program; `compiled` is present when it was asked for with `compile: true`. */
export type ProgramData = Program & { compiled?: Record<string, string> };

/**
 * Every `useQuery` option, plus `compile` (also return JavaScript for each TS/JSX file as
 * `data.compiled`), `leaseMs` (default: the store's programLeaseMs) and your own `queryKey`.
 */
export type UseProgramOptions<TData = ProgramData> = SharedQueryOptionsInput<ProgramData, TData> & { compile?: boolean | undefined };

type Extras = Partial<SharedFetchStoreExtras>;

function recordOf(store: SharedFetchStore, req: ProgramRequest) {
  const extras = store as Extras;
  return extras.programResultInfo?.call(store, req);
}

/**
 * Query options for a program (an entry module and everything it imports) resolved once across
 * replicas: `["shared-fetch", "program", url without query, key]`. Any recorded resolution meets a
 * mount, focus or prefetch, however old (a program is many requests); a poll (`refetchInterval`)
 * re-resolves one older than its interval, once for all replicas; `refetch()` and invalidation
 * re-resolve (a new revision), and so does any demand once the devtools invalidated the record.
 * `retry` / `retryDelay` run in the claimant, as sharedQueryOptions' do.
 */
export function sharedProgramOptions<TData = ProgramData>(
  store: SharedFetchStore,
  url: string | null,
  options?: UseProgramOptions<TData>,
): SharedQueryOptions<ProgramData, TData> {
  return programOptionsOf("sharedProgramOptions", store, url, options);
}

/** sharedProgramOptions as `fn` (the entry point the app called, which a warning names) builds them. */
export function programOptionsOf<TData>(
  fn: string,
  store: SharedFetchStore,
  url: string | null,
  options?: UseProgramOptions<TData>,
): SharedQueryOptions<ProgramData, TData> {
  requireStore(fn, store);
  // TypeScript refuses `{ headers }` here; in JavaScript it was taken for a TanStack option, silently.
  warnRequestFields(fn, options, "a program's modules are requested as plain GETs; it takes compile, leaseMs and useQuery's options");
  const { compile, queryKey: ownKey, leaseMs, behavior, ...rest } = options ?? {};
  let req: ProgramRequest | null = null;
  let key: QueryKey;
  let inputError: unknown;
  let work: string | undefined;
  try {
    // `compile` as given: one that is no boolean is refused by name, not taken for true or false.
    req = url === null ? null : { url: absoluteUrl(url), ...(compile !== undefined ? { compile } : {}) };
    if (req) {
      const n = normalizeProgramRequest(req);
      const u = new URL(n.url);
      work = (store as Extras).programKeyOf?.call(store, req) ?? hashKey(JSON.stringify([n.url, n.compile]));
      key = ownKey ?? ["shared-fetch", "program", `${u.origin}${u.pathname}`, work];
    } else key = ownKey ?? ["shared-fetch", null];
  } catch (error) {
    inputError = inputErrorOf(url, error);
    req = null;
    key = ownKey ?? ["shared-fetch", "invalid", hashKey(messageOf(error))];
  }
  const id = JSON.stringify(key);
  const run = async (ctx: QueryFunctionContext, req: ProgramRequest, ask: Ask): Promise<ProgramData> => {
    const query = queryOf(ctx);
    const refetchProgram = (store as Extras).refetchProgram;
    const fetch = takeFetch(query);
    const asked = demandOf(query, fetch);
    const past = pastShownError(store as Extras, "program", work, req, () => store.programSnapshot(req), ask.signal, asked, fetch?.error);
    const demand = (past && (await past)) ?? pastRecordedError(asked, () => store.programSnapshot(req));
    // Retries run inside the claim, as a fetch's: other replicas show pending through them.
    const given: Given = {};
    Object.assign(ask, { retry: retryPolicy(fetch, query, given), leaseMs });
    // A poll (refetchInterval) re-resolves once per interval for all replicas, as a polled fetch does.
    // Any demand re-resolves a program older than data the app set (or hydrated) since: else a focus
    // would put the older resolution back over it, with no request. Not one that is that data: a
    // cache restored at a reload (persistQueryClient) is dated when its answer came, after the
    // request the record is dated by, and each reload would re-resolve every program shown.
    const shown = query && shownSince(query);
    const since = shown && replaceEqualDeep(query.state.data, store.programSnapshot(req).data) !== query.state.data ? shown : undefined;
    const askedAt = Date.now();
    const maxAgeMs = Math.min(demand.mode === "ensure" && demand.poll ? demand.maxAgeMs : Infinity, since ? askedAt - since : Infinity);
    // Judged as of the same "now": the store's own read may be a ms later (a busy machine), and
    // the window since the set would shrink by it, a resolution sent right after the set too old.
    const opts = maxAgeMs < Infinity ? { ...ask, maxAgeMs: Math.max(0, maxAgeMs), [ASKED_AT]: askedAt } : ask;
    const snap = (
      demand.mode === "refetch" && refetchProgram
        ? await refetchProgram.call(store, req, demand.skipInFlight ? { ...opts, skipInFlight: true } : opts)
        : await store.ensureProgram(req, opts)
    ) as Snapshot;
    const record = recordOf(store, req);
    // A resolution sent before this ask (any replica's, however old) keeps its `at` as dataUpdatedAt.
    if (query && record && !snap.error)
      markDelivered(query, record, snap.data, (record.at ?? askedAt) < askedAt ? record.at : undefined, ctx.signal);
    return unwrap<ProgramData>(snap, given.error);
  };
  const r = req;
  const queryFn = sharedQueryFn(
    store,
    id,
    { req, inputError, name: "url" },
    run,
    r && work !== undefined
      ? {
          id: work,
          snapshot: () => store.programSnapshot(r) as Snapshot,
          subscribe: (listener) => store.subscribeProgram(r, listener),
          info: () => recordOf(store, r),
          look: (done) => (store as Extras).look?.("program", r, done),
          hold: (ask) => store.programSnapshot(r).claim && ((store as Extras).refetchProgram ?? store.ensureProgram).call(store, r, ask),
        }
      : undefined,
  );
  return queryOptions<ProgramData, SharedFetchError, TData, QueryKey>({
    // Its notifyOnChangeProps may name claim and isFetchingAnywhere: TanStack ignores names it lacks.
    ...(rest as Omit<UseQueryOptions<ProgramData, SharedFetchError, TData, QueryKey>, "queryKey" | "queryFn">),
    // A program any replica resolved shows at once (dated 0: TanStack sees it as stale and asks
    // again, which the store answers from the record without a request, unless the devtools
    // invalidated it: then it re-resolves).
    ...orRecorded(
      rest,
      () => (req && mayShowRecorded(store, id, work) ? (store.programSnapshot(req).data as ProgramData | undefined) : undefined),
      () => 0,
    ),
    ...notingDisabled(req === null && inputError === undefined ? false : rest.enabled),
    queryKey: key,
    queryFn,
    // Tells the query function why TanStack runs it (see demandOf).
    behavior: recordingBehavior(behavior),
  });
}
