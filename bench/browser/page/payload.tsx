/**
 * The Web Locks leader page carrying shared-fetch's code: the same imports as the shared-fetch
 * page (Yjs, the store, the hooks, the connectors), loaded and evaluated but never run. Its time
 * to data against the plain leader page is what the code alone costs a booting tab; the rest of
 * shared-fetch's gap is what its replica does at run time.
 */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, appName, mark } from "./probe.ts";
import { QueryClient, useQuery } from "@tanstack/react-query";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchProvider, useSharedFetch } from "../../../src/index.ts";
import { connectPeers, connectTabs } from "../../../src/sync/index.ts";
import { FRESH_MS, mount, queryOptionsFor } from "./app.tsx";
import { createLockLeader } from "./lock-leader.ts";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

// Held where the bundler cannot drop them (the package declares no side effects).
export const carried = [Y.Doc, createSharedFetchStore, SharedFetchProvider, useSharedFetch, connectTabs, connectPeers];
(window as unknown as { __carried: unknown }).__carried = carried;

const leader = createLockLeader({ name: appName, reuseMs: FRESH_MS, onLeader: () => mark("leader") });
void leader.role.then((role) => mark(role));
const options = queryOptionsFor(undefined);
mount(new QueryClient(), () => useQuery({ queryKey: ["bench", api], queryFn: () => leader.get(api), ...options }));
