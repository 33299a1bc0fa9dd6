// @vitest-environment jsdom
/**
 * README ("Retries run inside the claim"): in a SharedWorker tab, a numeric `retry` with a
 * function `retryDelay` calls retryDelay as TanStack's retryer does, first on every failure, the
 * last one too, beside a plain useQuery (or useMutation, given to sharedMutationFn) with the same options. The worker runs the count itself
 * and asks the tab only for the delay; before, it asked nothing after the last failure, so the
 * tab's retryDelay missed its last call. Real ports, docs and stores; FakeLocks; the sim's host.
 */
import { QueryClient, QueryClientProvider, useMutation, useQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchError, SharedFetchProvider, sharedMutationFn, sharedQueryOptions } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);

it("retry: 2 with a retryDelay function: the delay is asked after each of the 3 failures, as in a plain useQuery", async () => {
  const host = new Host();
  host.auto = () => ({ status: 503, body: "busy" });
  const store = browser(host).tab();
  const logs = { shared: [] as string[], plain: [] as string[] };
  const delay = (log: string[]) => (n: number, error: unknown) => {
    log.push(`delay ${n} ${error instanceof SharedFetchError ? (error as SharedFetchError).status : typeof error}`);
    return 1;
  };
  const status: Record<string, string> = {};
  function Shared() {
    status.shared = useQuery({
      ...sharedQueryOptions(store, "http://127.0.0.1:9/api/delay-last"),
      retry: 2,
      retryDelay: delay(logs.shared),
    }).status;
    return null;
  }
  function Plain() {
    status.plain = useQuery({
      queryKey: ["plain"],
      queryFn: () => Promise.reject(new SharedFetchError({ message: "HTTP 503", status: 503 })),
      retry: 2,
      retryDelay: delay(logs.plain),
    }).status;
    return null;
  }
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Shared />
        <Plain />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  await waitFor(() => expect(status).toEqual({ shared: "error", plain: "error" }));
  expect(host.calls).toHaveLength(3);
  expect(logs.plain).toEqual(["delay 0 503", "delay 1 503", "delay 2 503"]);
  expect(logs.shared).toEqual(logs.plain);
});

it("a sharedMutationFn's retry: 2 with a retryDelay function: the delay is asked after each of the 3 failures, as in a plain useMutation", async () => {
  const host = new Host();
  host.auto = () => ({ status: 503, body: "busy" });
  const store = browser(host).tab();
  const logs = { shared: [] as string[], plain: [] as string[] };
  const delay = (log: string[]) => (n: number) => (log.push(`delay ${n}`), 1);
  const fns = {
    shared: sharedMutationFn(store, () => ({ url: "http://127.0.0.1:9/api/post-delay-last", method: "POST", body: "{}" }), {
      retry: 2,
      retryDelay: delay(logs.shared),
    }),
    plain: () => Promise.reject(new SharedFetchError({ message: "HTTP 503", status: 503 })),
  };
  const status: Record<string, string> = {};
  function Pane({ side }: { side: "shared" | "plain" }) {
    const options = side === "plain" ? { retry: 2, retryDelay: delay(logs.plain) } : {};
    const m = useMutation<unknown, Error, void>({ mutationFn: fns[side], ...options });
    status[side] = m.status;
    return <button onClick={() => m.mutate()}>{`post ${side}`}</button>;
  }
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Pane side="shared" />
        <Pane side="plain" />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  await act(() => ["shared", "plain"].forEach((side) => fireEvent.click(screen.getByText(`post ${side}`))));
  await waitFor(() => expect(status).toEqual({ shared: "error", plain: "error" }));
  expect(host.calls).toHaveLength(3);
  expect(logs.plain).toEqual(["delay 0", "delay 1", "delay 2"]);
  expect(logs.shared).toEqual(logs.plain);
});
