/**
 * The Web Locks leader page that loads shared-fetch's replica (Yjs, the store, connectTabs) by
 * `import()` only once its data arrived: the floor of a design whose replica waits for the first
 * data (see beside.tsx for one that starts it at once).
 */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, appName, mark } from "./probe.ts";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { FRESH_MS, mount, queryOptionsFor } from "./app.tsx";
import { createLockLeader } from "./lock-leader.ts";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

const leader = createLockLeader({ name: appName, reuseMs: FRESH_MS, onLeader: () => mark("leader") });
void leader.role.then((role) => mark(role));
let started = false;
const startLater = () => {
  if (started) return;
  started = true;
  // After the render that shows the data: the replica's loading does not delay it.
  setTimeout(() => void import("./later-replica.ts").then(({ startReplica }) => startReplica(appName)), 0);
};
const options = queryOptionsFor(undefined);
mount(new QueryClient(), () =>
  useQuery({
    queryKey: ["bench", api],
    queryFn: async () => {
      const data = await leader.get(api);
      startLater();
      return data;
    },
    ...options,
  }),
);
