"use client";
// A client module (React Server Components): context and an effect. A server component renders
// it as a client reference; the store it is given must come from a client module too.
import { QueryClientContext } from "@tanstack/react-query";
import { createContext, useContext, useEffect, type ReactNode } from "react";
import type { SharedFetchStore } from "../core/types.ts";
import { ensureBridge, holdBridge } from "./bridge.ts";
import { useHydrating } from "./hydration.ts";
import { requireStore } from "./require-store.ts";

const StoreContext = createContext<SharedFetchStore | null>(null);

/**
 * Makes a store (from createSharedFetchStore) available to useSharedFetch and useProgram. Inside a
 * QueryClientProvider it also brings results other replicas record into that client's shared
 * queries, whichever hook renders them (TanStack's useQuery, useQueries, useSuspenseQuery too).
 */
export function SharedFetchProvider({ store, children }: { store: SharedFetchStore; children?: ReactNode }) {
  // Read without useQueryClient, which throws: the provider may sit outside QueryClientProvider
  // (the hooks and the query functions hold the bridge then).
  const client = useContext(QueryClientContext);
  // A connection, a doc or a config object given for the store is named here, not by the first hook
  // as "sharedQueryOptions: the first argument …", which the app never called. None (a store made
  // later) is left to the hooks' own "No shared-fetch store set".
  if (store != null) requireStore("SharedFetchProvider", store, "`store`");
  // Before the children's queries are made, which the bridge reads as TanStack hands them out (a
  // feed's first render shows a restored chain's failed page): not while hydrating (what this
  // browser recorded would not match the server's HTML) nor on the server.
  const hydrating = useHydrating();
  if (!hydrating && client && store) ensureBridge(client, store);
  useEffect(() => (client && store ? holdBridge(client, store) : undefined), [client, store]);
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useSharedFetchStore(): SharedFetchStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error("No shared-fetch store set, use <SharedFetchProvider store={createSharedFetchStore({ doc })}> to set one");
  return store;
}
