// @vitest-environment jsdom
/**
 * README ("Retries run inside the claim", sharedMutationFn's `retry`): `retry` and `retryDelay`
 * given as functions are called as TanStack's retryer calls them, beside a plain useQuery /
 * useMutation with the same functions against a real HTTP server on 127.0.0.1:
 * - they receive a SharedFetchError (`error instanceof SharedFetchError`, its `status`), in a
 *   mutation as in a query; before, sharedMutationFn's got a plain `{ message, status }` object;
 * - `retryDelay` is asked first, on every failure (the last one too), with the error `retry` then
 *   gets; before, the store asked `retry` first and never `retryDelay` after the last failure.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { expect, it } from "vitest";
import { SharedFetchError, sharedMutationFn, sharedQueryOptions } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { sideBySideServerForFile, twoTabs } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

/** `retry` / `retryDelay` functions that log each call: which one, the count, and what the error is. */
function logged(log: string[]) {
  let lastError: unknown;
  const seen = (name: string, n: number, error: unknown) => {
    const same = name === "retry" && error === lastError ? " same" : "";
    lastError = error;
    const e = error as { status?: number };
    log.push(`${name} ${n} ${error instanceof SharedFetchError ? "SharedFetchError" : typeof error} ${e.status}${same}`);
  };
  return {
    retry: (n: number, error: unknown) => (seen("retry", n, error), n < 2),
    retryDelay: (n: number, error: unknown) => (seen("delay", n, error), 5),
  };
}

/** What TanStack's retryer calls for three failed attempts with `retry: n => n < 2`. */
const THREE_FAILURES = [
  "delay 0 SharedFetchError 500",
  "retry 0 SharedFetchError 500 same",
  "delay 1 SharedFetchError 500",
  "retry 1 SharedFetchError 500 same",
  "delay 2 SharedFetchError 500",
  "retry 2 SharedFetchError 500 same",
];

const thrown = async (res: Response) => {
  if (!res.ok) throw new SharedFetchError({ message: `HTTP ${res.status}`, status: res.status });
  return res.json();
};

it("a mutation's retry functions, given to sharedMutationFn, are called as useMutation's own: SharedFetchError, delay first, every failure", async () => {
  const [a] = twoTabs();
  server.failing = true;
  const logs = { shared: [] as string[], plain: [] as string[] };
  const shared = sharedMutationFn(a, () => ({ url: `${server.base}/s/items`, method: "POST", body: "{}" }), logged(logs.shared));
  const plain = async () => thrown(await fetch(`${server.base}/p/items`, { method: "POST", body: "{}" }));
  const status: Record<string, string> = {};
  function Pane({ id, fn, options }: { id: string; fn: () => Promise<unknown>; options: object }) {
    const m = useMutation({ mutationFn: fn, ...options });
    status[id] = m.status;
    return <button onClick={() => m.mutate()}>{`post ${id}`}</button>;
  }
  render(
    app(
      a,
      <>
        <Pane id="shared" fn={shared} options={{}} />
        <Pane id="plain" fn={plain} options={logged(logs.plain)} />
      </>,
    ),
  );
  await act(() => ["shared", "plain"].forEach((id) => fireEvent.click(screen.getByText(`post ${id}`))));
  await waitFor(() => expect(status).toEqual({ shared: "error", plain: "error" }));
  expect(logs).toEqual({ shared: THREE_FAILURES, plain: THREE_FAILURES });
});

it("a query's retry functions are called as a plain useQuery's: delay first, on every failure, the last one too", async () => {
  const [a] = twoTabs();
  server.failing = true;
  const logs = { shared: [] as string[], plain: [] as string[] };
  const status: Record<string, string> = {};
  function Shared() {
    status.shared = useQuery(sharedQueryOptions(a, `${server.base}/s/q`, logged(logs.shared))).status;
    return null;
  }
  function Plain() {
    status.plain = useQuery({
      queryKey: ["plain"],
      queryFn: async ({ signal }) => thrown(await fetch(`${server.base}/p/q`, { signal })),
      ...logged(logs.plain),
    }).status;
    return null;
  }
  render(
    app(
      a,
      <>
        <Shared />
        <Plain />
      </>,
    ),
  );
  await waitFor(() => expect(status).toEqual({ shared: "error", plain: "error" }));
  expect(logs).toEqual({ shared: THREE_FAILURES, plain: THREE_FAILURES });
  expect(server.seen.filter((p) => p === "/s/q")).toHaveLength(3);
});
