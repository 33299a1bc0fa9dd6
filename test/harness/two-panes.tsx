/** Two replicas of a cluster, each a pane with its own QueryClient showing URL_A's `{ n }`, the host answering by hand. */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, render, screen, waitFor } from "@testing-library/react";
import { expect } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "./render-app.tsx";
import { cluster, URL_A } from "./replicas.ts";

type Item = { n: number };
/** The query key prefix of URL_A's queries (sharedQueryOptions' default key). */
export const PREFIX = ["shared-fetch", "GET", URL_A];
export const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
export const text = (name: string) => screen.getByTestId(name).textContent;

function Shown({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const q = useQuery(sharedQueryOptions<Item>(store, URL_A, { staleTime: 60_000 }));
  return <span data-testid={name}>{q.data ? String(q.data.n) : q.status}</span>;
}

/** Panes "a" and "b" (staleTime 60 s), both showing the first answer ({ n: 1 }). */
export async function twoPanesShowingOne() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = () => undefined;
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const clientA = new QueryClient();
  const clientB = new QueryClient();
  render(
    <>
      {app(a, <Shown store={a} name="a" />, clientA)}
      {app(b, <Shown store={b} name="b" />, clientB)}
    </>,
  );
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  c.host.calls[0]!.respond(200, { n: 1 });
  await waitFor(() => expect([text("a"), text("b")]).toEqual(["1", "1"]));
  return { c, clientA, clientB };
}
