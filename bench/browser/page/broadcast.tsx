/** TanStack Query + its broadcast plugin: finished results are copied between tabs, every tab still fetches. */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, appName, interval, mark } from "./probe.ts";
import { broadcastQueryClient } from "@tanstack/query-broadcast-client-experimental";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { mount, queryOptionsFor } from "./app.tsx";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

const client = new QueryClient();
broadcastQueryClient({ queryClient: client as never, broadcastChannel: appName });
const options = queryOptionsFor(interval);
mount(client, () =>
  useQuery({
    queryKey: ["bench", api],
    queryFn: async () => (await fetch(api, { cache: "no-store" })).json() as Promise<unknown>,
    ...options,
  }),
);
