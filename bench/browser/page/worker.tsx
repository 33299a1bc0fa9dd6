/**
 * shared-fetch with the browser's one replica in a SharedWorker, as the README's SharedWorker
 * section shows it: connectBrowser with the package's worker file, nothing awaited, and
 * useSharedFetch with the same query options as every contender. The request leaves from the
 * worker, so this page's probe sees no fetch of its own (the host counts it).
 */
import { api, appName, interval, mark, now, win } from "./probe.ts";
import { QueryClient } from "@tanstack/react-query";
import { connectBrowser, SharedFetchProvider, useSharedFetch, type StoreEvent } from "../../../src/index.ts";
import { mount, queryOptionsFor } from "./app.tsx";

const store = connectBrowser({
  name: appName,
  worker: (name) => new SharedWorker(new URL("../../../src/worker/shared-worker.ts", import.meta.url), { type: "module", name }),
});
mark("store");
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
