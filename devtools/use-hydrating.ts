"use client";

import { useSyncExternalStore } from "react";

const noSubscribe = () => () => {};

/**
 * True while React renders on the server or hydrates what the server rendered, false from the
 * render right after. The panel shows one replica's store, its id and its clock: the server's is
 * not this page's, and rendered during hydration it would not match the server's HTML (React then
 * throws the page's HTML away). TanStack's devtools render nothing on the server either.
 */
export function useHydrating(): boolean {
  return useSyncExternalStore(
    noSubscribe,
    () => false,
    () => true,
  );
}
