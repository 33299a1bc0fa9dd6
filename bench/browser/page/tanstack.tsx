/** TanStack Query alone: every tab fetches for itself (in-tab dedupe only). */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, interval, mark } from "./probe.ts";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { mount, queryOptionsFor } from "./app.tsx";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

const options = queryOptionsFor(interval);
mount(new QueryClient(), () =>
  useQuery({
    queryKey: ["bench", api],
    queryFn: async () => (await fetch(api, { cache: "no-store" })).json() as Promise<unknown>,
    ...options,
  }),
);
