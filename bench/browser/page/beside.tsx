/**
 * The Web Locks leader page that loads shared-fetch's replica (Yjs, the store, connectTabs) by
 * `import()` once its lock role is decided, beside its request: the best a design could do whose
 * first request and data need none of Yjs or the engine, but whose replica starts at once. Its
 * time to data against the plain leader page is what the replica's loading costs the other tabs'
 * boots (on a machine with fewer cores than tabs).
 */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, appName, mark } from "./probe.ts";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { FRESH_MS, mount, queryOptionsFor } from "./app.tsx";
import { createLockLeader } from "./lock-leader.ts";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

const leader = createLockLeader({ name: appName, reuseMs: FRESH_MS, onLeader: () => mark("leader") });
void leader.role.then((role) => {
  mark(role);
  void import("./later-replica.ts").then(({ startReplica }) => startReplica(appName));
});
const options = queryOptionsFor(undefined);
mount(new QueryClient(), () => useQuery({ queryKey: ["bench", api], queryFn: () => leader.get(api), ...options }));
