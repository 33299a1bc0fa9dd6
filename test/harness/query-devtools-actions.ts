/**
 * The actions of TanStack's Query devtools (`@tanstack/query-devtools` 5.108.4, the query details'
 * buttons in build/DevtoolsSubscriptionsProvider-*.js), run as its buttons run them: the event each
 * one dispatches on `window`, then the same calls on the Query and the QueryClient.
 */
import type { Query, QueryClient } from "@tanstack/react-query";

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;
type Meta = Record<string, unknown> | null;

function tell(type: string, query: AnyQuery): void {
  window.dispatchEvent(
    new CustomEvent("@tanstack/query-devtools-event", { detail: { type, queryHash: query.queryHash }, bubbles: true, cancelable: true }),
  );
}

export const queryDevtools = {
  refetch(query: AnyQuery): void {
    tell("REFETCH", query);
    void query.fetch()?.catch(() => {});
  },
  invalidate(client: QueryClient, query: AnyQuery): void {
    tell("INVALIDATE", query);
    void client.invalidateQueries({ queryKey: query.queryKey, exact: true });
  },
  reset(client: QueryClient, query: AnyQuery): void {
    tell("RESET", query);
    void client.resetQueries({ queryKey: query.queryKey, exact: true });
  },
  remove(client: QueryClient, query: AnyQuery): void {
    tell("REMOVE", query);
    client.removeQueries({ queryKey: query.queryKey, exact: true });
  },
  /** "Trigger Loading", or "Restore Loading" where the query holds no data (one button). */
  loading(query: AnyQuery): void {
    if (query.state.data === undefined) {
      tell("RESTORE_LOADING", query);
      const state = query.state;
      const previous = (state.fetchMeta as Meta)?.__previousQueryOptions as AnyQuery["options"] | null | undefined;
      query.cancel({ silent: true });
      query.setState({ ...state, fetchStatus: "idle", fetchMeta: null });
      if (previous) void query.fetch(previous);
      return;
    }
    tell("TRIGGER_LOADING", query);
    const options = query.options;
    void query.fetch({ ...options, queryFn: () => new Promise<never>(() => {}), gcTime: -1 });
    query.setState({
      data: undefined,
      status: "pending",
      fetchMeta: { ...(query.state.fetchMeta as Meta), __previousQueryOptions: options } as never,
    });
  },
  /** "Trigger Error", or "Restore Error" where the query shows an error (one button). */
  error(client: QueryClient, query: AnyQuery): void {
    if (query.state.error) {
      tell("RESTORE_ERROR", query);
      void client.resetQueries({ queryKey: query.queryKey });
      return;
    }
    tell("TRIGGER_ERROR", query);
    const options = query.options;
    query.setState({
      data: undefined,
      status: "error",
      error: new Error("Unknown error from devtools"),
      fetchMeta: { ...(query.state.fetchMeta as Meta), __previousQueryOptions: options } as never,
    });
  },
};

/** What the devtools' query list shows of a query: its badge (fresh, fetching, paused, stale, inactive) and observers. */
export function badgeOf(query: AnyQuery): string {
  const { fetchStatus } = query.state;
  if (fetchStatus === "fetching") return "fetching";
  if (!query.getObserversCount()) return "inactive";
  return fetchStatus === "paused" ? "paused" : query.isStale() ? "stale" : "fresh";
}
