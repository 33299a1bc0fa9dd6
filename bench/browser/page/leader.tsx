/** The Web Locks leader page: TanStack Query whose query function asks the tab that leads (lock-leader.ts). */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, appName, mark } from "./probe.ts";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { FRESH_MS, mount, queryOptionsFor } from "./app.tsx";
import { createLockLeader } from "./lock-leader.ts";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

const leader = createLockLeader({ name: appName, reuseMs: FRESH_MS, onLeader: () => mark("leader") });
void leader.role.then((role) => mark(role));
const options = queryOptionsFor(undefined);
mount(new QueryClient(), () => useQuery({ queryKey: ["bench", api], queryFn: () => leader.get(api), ...options }));
