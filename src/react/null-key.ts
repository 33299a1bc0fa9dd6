"use client";
import type { QueryKey } from "@tanstack/react-query";
import { useId } from "react";

/**
 * A null request's options: the hook's own key (unless the caller gave one), as a disabled
 * useQuery's key is its own. One key for every null request would share an initialData or a
 * refetch's error with every other pane; `queryKey: undefined` is no key.
 */
export function useOwnNullKey<O extends { queryKey?: QueryKey | undefined }>(isNull: boolean, options: O | undefined): O | undefined {
  const id = useId();
  return isNull ? ({ ...options, queryKey: options?.queryKey ?? ["shared-fetch", null, id] } as O) : options;
}
