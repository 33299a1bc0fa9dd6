// @vitest-environment jsdom
/**
 * README (sharedMutationFn's `retry`, run inside the claim): useMutation's `failureCount` and
 * `failureReason` rise through those retries as they rise through useMutation's own, and the error
 * counts every attempt, beside a plain useMutation with the same `retry` against a real HTTP
 * server on 127.0.0.1; a tab whose call joined the identical call of another tab shows that claim's
 * failures too. Before, the shared call read 0 until the error, which counted 1.
 */
import { useMutation, useMutationState } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { expect, it } from "vitest";
import { sharedMutationFn, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { sideBySideServerForFile, text, twoTabs } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
const retry = { retry: 2, retryDelay: 20 };
/** What a plain useMutation with `retry: 2` shows of a call whose three attempts fail. */
const THREE_FAILURES = ["idle 0 -", "pending 0 -", "pending 1 HTTP 500", "pending 2 HTTP 500", "error 3 HTTP 500"];

/** A pane's distinct states: status, failureCount and failureReason's start, and `post` to click. */
function Pane({ id, fn, options, logs }: { id: string; fn: () => Promise<unknown>; options: object; logs: Record<string, string[]> }) {
  const m = useMutation({ mutationFn: fn, ...options });
  const shown = `${m.status} ${m.failureCount} ${m.failureReason?.message.slice(0, 8) ?? "-"}`;
  const log = (logs[id] ??= []);
  if (log.at(-1) !== shown) log.push(shown);
  return <button onClick={() => m.mutate()}>{`post ${id}`}</button>;
}

const sharedPost = (store: SharedFetchStoreWithExtras) =>
  sharedMutationFn(store, () => ({ url: `${server.base}/s/items`, method: "POST", body: "{}" }), retry);

it("the store's retries show in failureCount and failureReason as useMutation's own retries do; the error counts every attempt", async () => {
  const [a] = twoTabs();
  server.failing = true;
  const logs: Record<string, string[]> = {};
  const plain = async () => {
    const res = await fetch(`${server.base}/p/items`, { method: "POST", body: "{}" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return res.json();
  };
  function Counts() {
    return <span data-testid="counts">{useMutationState({ select: (m) => m.state.failureCount }).join(",")}</span>;
  }
  render(
    app(
      a,
      <>
        <Pane id="shared" fn={sharedPost(a)} options={{}} logs={logs} />
        <Pane id="plain" fn={plain} options={retry} logs={logs} />
        <Counts />
      </>,
    ),
  );
  await act(() => ["shared", "plain"].forEach((id) => fireEvent.click(screen.getByText(`post ${id}`))));
  await waitFor(() => expect([logs.shared!.at(-1), logs.plain!.at(-1)]).toEqual(["error 3 HTTP 500", "error 3 HTTP 500"]));
  expect(logs).toEqual({ shared: THREE_FAILURES, plain: THREE_FAILURES });
  // useMutationState reads the same counts from the mutation cache.
  expect(text("counts")).toBe("3,3");
  expect(server.seen.filter((p) => p === "/s/items")).toHaveLength(3);
});

it("a tab whose call joined another tab's identical call shows that claim's failures rising too: one sequence of attempts", async () => {
  const [a, b] = twoTabs();
  server.failing = true;
  const logs: Record<string, string[]> = {};
  render(
    <>
      {app(a, <Pane id="a" fn={sharedPost(a)} options={{}} logs={logs} />)}
      {app(b, <Pane id="b" fn={sharedPost(b)} options={{}} logs={logs} />)}
    </>,
  );
  await act(() => ["a", "b"].forEach((id) => fireEvent.click(screen.getByText(`post ${id}`))));
  await waitFor(() => expect([logs.a!.at(-1), logs.b!.at(-1)]).toEqual(["error 3 HTTP 500", "error 3 HTTP 500"]));
  expect(logs).toEqual({ a: THREE_FAILURES, b: THREE_FAILURES });
  expect(server.seen).toEqual(["/s/items", "/s/items", "/s/items"]);
});
