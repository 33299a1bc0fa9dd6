/** One pane's providers (a fresh QueryClient over the given store) and fake-timer steps inside act(). */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act } from "@testing-library/react";
import type { ReactNode } from "react";
import { vi } from "vitest";
import { SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";

export function app(store: SharedFetchStoreWithExtras, node: ReactNode, client = new QueryClient()) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

export const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
