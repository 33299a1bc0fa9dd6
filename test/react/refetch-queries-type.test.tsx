// @vitest-environment jsdom
/**
 * `refetchQueries({ queryKey, type })` on the `["shared-fetch", "GET"]` prefix, from a tab whose
 * shared query is cached but no longer shown, while another tab shows it (README: an explicit
 * refetch asks for a newer revision; other replicas' results reach TanStack's own hooks). TanStack's
 * `type` filter decides what runs, as for plain queries; what runs is one request that every tab
 * shows. Two tabs of one browser against a real HTTP server on 127.0.0.1.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { useState } from "react";
import { expect, it } from "vitest";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, twoTabs, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
const PREFIX = ["shared-fetch", "GET"];

it("type active sends nothing where the query is inactive; inactive and all send one request each, and the tab showing it gets the result; during the other tab's request, it waits and then sends its own", async () => {
  const [a, b] = twoTabs();
  const [clientA, clientB] = [new QueryClient(), new QueryClient()];
  const shown: Record<string, number | undefined> = {};
  let hideB = () => {};
  function Pane({ id, store }: { id: string; store: typeof a }) {
    shown[id] = useQuery(sideBySide(server, store, "/t", { staleTime: 60_000 })[0]).data?.n;
    return null;
  }
  function TabB() {
    const [on, setOn] = useState(true);
    hideB = () => setOn(false);
    return on ? <Pane id="b" store={b} /> : null;
  }
  render(
    <>
      {app(a, <Pane id="a" store={a} />, clientA)}
      {app(b, <TabB />, clientB)}
    </>,
  );
  await waitFor(() => expect([shown.a, shown.b]).toEqual([1, 1]));
  act(() => hideB());
  const cachedInB = () => (clientB.getQueryData(sideBySide(server, b, "/t")[0].queryKey) as Body | undefined)?.n;
  const sent = () => server.seen.filter((p) => p === "/s/t").length;

  await act(() => clientB.refetchQueries({ queryKey: PREFIX, type: "active" }));
  await pause(50); // a request would have left by now
  expect([sent(), shown.a, cachedInB()]).toEqual([1, 1, 1]);

  await act(() => clientB.refetchQueries({ queryKey: PREFIX, type: "inactive" }));
  await waitFor(() => expect(shown.a).toBe(2));
  expect([sent(), cachedInB()]).toEqual([2, 2]);

  await act(() => clientB.refetchQueries({ queryKey: PREFIX, type: "all" }));
  await waitFor(() => expect(shown.a).toBe(3));
  expect([sent(), cachedInB()]).toEqual([3, 3]);

  // Tab a's own refetch is in flight: b's may not take its answer (it may predate b's change).
  server.held = [];
  // Not inside act: React 18 loses the updates of two act scopes that overlap.
  const inA = clientA.refetchQueries({ queryKey: PREFIX });
  await waitFor(() => expect(server.held!.length).toBe(1));
  const inB = clientB.refetchQueries({ queryKey: PREFIX, type: "inactive" });
  await pause(50);
  expect(sent()).toBe(4);
  const held = server.held;
  server.held = null;
  held.forEach((answer) => answer());
  await act(() => Promise.all([inA, inB]));
  await waitFor(() => expect(shown.a).toBe(5));
  expect([sent(), cachedInB()]).toEqual([5, 5]);
});
