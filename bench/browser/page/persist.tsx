/**
 * TanStack Query + its persister, as TanStack's docs set it up: PersistQueryClientProvider with
 * an async storage persister over localStorage, gcTime as long as the persister's maxAge. A tab
 * opened later restores the cache the others saved; every tab still fetches for itself what is
 * stale (the persister shares storage, not requests).
 */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, appName, mark } from "./probe.ts";
import { createAsyncStoragePersister } from "@tanstack/query-async-storage-persister";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { PersistQueryClientProvider } from "@tanstack/react-query-persist-client";
import { mount, queryOptionsFor } from "./app.tsx";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

const DAY_MS = 24 * 60 * 60 * 1000;
const client = new QueryClient({ defaultOptions: { queries: { gcTime: DAY_MS } } });
const persister = createAsyncStoragePersister({ storage: window.localStorage, key: `bench-persist:${appName}` });
const options = queryOptionsFor(undefined);
mount(
  client,
  () =>
    useQuery({
      queryKey: ["bench", api],
      queryFn: async () => (await fetch(api, { cache: "no-store" })).json() as Promise<unknown>,
      ...options,
    }),
  (children) => (
    <PersistQueryClientProvider client={client} persistOptions={{ persister, maxAge: DAY_MS }}>
      {children}
    </PersistQueryClientProvider>
  ),
);
