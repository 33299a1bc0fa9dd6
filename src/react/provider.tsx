import { createContext, useContext, type ReactNode } from "react";
import type { SharedFetchStore } from "../core/types.ts";

const StoreContext = createContext<SharedFetchStore | null>(null);

/** Makes a store (from createSharedFetchStore) available to useSharedFetch and useProgram. */
export function SharedFetchProvider({ store, children }: { store: SharedFetchStore; children?: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useSharedFetchStore(): SharedFetchStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error("No shared-fetch store set, use <SharedFetchProvider store={createSharedFetchStore({ doc })}> to set one");
  return store;
}
