import type { QueryClient } from "@tanstack/react-query";
import { QueryClientProvider } from "@tanstack/react-query";
import { useLayoutEffect, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { countRender, mark, now, staleMs, win } from "./probe.ts";

type QueryView = { status: string; data: unknown; error: Error | null };

/** Renders one query into data-testid elements (what the harness's Tab reads) and marks data in the DOM. */
function View({ useView }: { useView: () => QueryView }) {
  mark("render");
  countRender();
  const { status, data, error } = useView();
  useLayoutEffect(() => {
    // Layout effects run after React wrote the DOM: the data is in the document now. Each value
    // shown is marked too (a return visit shows a persisted value, then the revalidated one).
    if (data !== undefined) {
      mark("data");
      mark(`data=${JSON.stringify(data)}`);
    }
    const last = win.__history.at(-1);
    if (!last || last.status !== status || last.hasData !== (data !== undefined))
      win.__history.push({ at: now(), status, hasData: data !== undefined, mine: null });
  });
  return (
    <main>
      <p>
        status: <span data-testid="status">{status}</span>
      </p>
      <p>
        data: <span data-testid="data">{data === undefined ? "" : JSON.stringify(data)}</span>
      </p>
      <p>
        error: <span data-testid="error">{error ? error.message : ""}</span>
      </p>
    </main>
  );
}

/** Mounts the contender's view; `wrap` adds providers of its own (shared-fetch's). */
export function mount(client: QueryClient, useView: () => QueryView, wrap: (children: ReactNode) => ReactNode = (c) => c): void {
  createRoot(document.getElementById("root")!).render(
    <QueryClientProvider client={client}>{wrap(<View useView={useView} />)}</QueryClientProvider>,
  );
  win.__ready = true;
  mark("ready");
}

/**
 * The query options of every contender: the README's example (a result younger than 30 s is
 * fresh: a tab opened after it was recorded uses it, as the lock leader reuses its last result;
 * the harness's `stale` parameter instead, and no poll, for a return visit that finds the result
 * stale), with polling every `interval` ms for the interval figure.
 */
export const FRESH_MS = staleMs ?? 30_000;
export function queryOptionsFor(interval: number | undefined) {
  return {
    staleTime: FRESH_MS,
    // Not with the harness's staleTime: a polled query's mounts are judged by its poll window
    // (README, "Coming from TanStack Query"), and the return visit is about the staleTime.
    ...(staleMs === undefined ? { refetchInterval: 60_000 } : {}),
    ...(interval ? { refetchInterval: interval, refetchIntervalInBackground: true } : {}),
  };
}
