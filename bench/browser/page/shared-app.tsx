/** What both shared-fetch pages (per-tab replicas, SharedWorker) do with their store: record its milestones, mount the view. */
import { QueryClient } from "@tanstack/react-query";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStore, type StoreEvent } from "../../../src/index.ts";
import { mount, queryOptionsFor } from "./app.tsx";
import { api, interval, mark, now, win } from "./probe.ts";

type ObservedStore = SharedFetchStore & { onEvent(listener: (event: StoreEvent) => void): () => void };

export function mountSharedFetch(store: ObservedStore): void {
  mark("store");
  // When the hook first asks (its query function runs after React's first commit).
  const ensure = store.ensure.bind(store);
  store.ensure = (...args: Parameters<typeof ensure>) => {
    mark("ensure");
    return ensure(...args);
  };
  store.onEvent((event: StoreEvent) => {
    const at = now();
    win.__events.push({ at, ...event });
    mark(event.type, at);
  });
  const options = queryOptionsFor(interval);
  mount(
    new QueryClient(),
    () => useSharedFetch(api, options),
    (children) => <SharedFetchProvider store={store}>{children}</SharedFetchProvider>,
  );
}
