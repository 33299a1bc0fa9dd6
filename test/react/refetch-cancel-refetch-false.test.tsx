// @vitest-environment jsdom
/**
 * README ("An explicit refetch asks for a newer revision"): TanStack's own
 * `refetch({ cancelRefetch: false })` reaches the query function with the options a focus or
 * reconnect refetch has, but TanStack refetches at a focus or reconnect only data an observer
 * finds stale: on data no observer finds stale, it is the caller's refetch and sends one request
 * on `useQuery(sharedQueryOptions(…))` as on a plain query (it sent none, answered by the recorded
 * result within the staleTime); the hooks' `refetch()` always asks for a newer revision,
 * `cancelRefetch: false` or not. Stale data: a focus's freshness demand, which another tab's
 * recent enough result meets (focus tests). Against a real HTTP server on 127.0.0.1.
 */
import { useQuery } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, text, twoTabs, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

type Refetchable = { data?: Body | undefined; refetch: (options: { cancelRefetch: boolean }) => Promise<unknown> };

function Shown({ id, q }: { id: string; q: Refetchable }) {
  return (
    <>
      <span data-testid={id}>{q.data ? String(q.data.n) : "-"}</span>
      <button data-testid={`${id}-refetch`} onClick={() => void q.refetch({ cancelRefetch: false })} />
    </>
  );
}
function Plain({ store, which }: { store: SharedFetchStoreWithExtras; which: 0 | 1 }) {
  const q = useQuery(sideBySide(server, store, "/items", { staleTime: 60_000 })[which]);
  return <Shown id={which === 0 ? "shared" : "plain"} q={q} />;
}
function Hook() {
  const q = useSharedFetch<Body>(`${server.base}/s/hook`, { staleTime: 60_000 });
  return <Shown id="hook" q={q} />;
}

it("refetch({ cancelRefetch: false }) within the staleTime sends one request on useQuery(sharedQueryOptions), as on a plain query and the hook's refetch", async () => {
  const [a] = twoTabs();
  render(
    app(
      a,
      <>
        <Plain store={a} which={0} />
        <Plain store={a} which={1} />
        <Hook />
      </>,
    ),
  );
  await waitFor(() => expect([text("shared"), text("plain"), text("hook")]).toEqual(["1", "1", "1"]));
  for (const id of ["shared", "plain", "hook"]) act(() => void fireEvent.click(screen.getByTestId(`${id}-refetch`)));
  await waitFor(() => expect([text("shared"), text("plain"), text("hook")]).toEqual(["2", "2", "2"]));
  await pause(100);
  expect([...server.seen].sort()).toEqual(["/p/items", "/p/items", "/s/hook", "/s/hook", "/s/items", "/s/items"]);
});
