// @vitest-environment jsdom
/**
 * README ("Retries run inside the claim"): the error objects a TanStack user keys effects on keep
 * TanStack's identities, beside a plain useQuery / useMutation with the same options against a real
 * HTTP server on 127.0.0.1. TanStack's retryer shows as `failureReason` the very error it gave
 * `retry` for that failure, and the last one as `error`: one object per failure. Before, the
 * claimant made a second SharedFetchError for `failureReason`, and a third for `error`, so an
 * effect on `[failureReason]` or a check `error === lastSeen` saw objects `retry` never saw.
 * Each render's line names the objects by first appearance (e1, e2, …).
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { expect, it } from "vitest";
import { SharedFetchError, sharedMutationFn } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { sideBySide, sideBySideServerForFile, twoTabs, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
type Side = "shared" | "plain";

/** Per side: a log, names for objects by first appearance, and retry functions that log the error they get. */
function sides() {
  const make = () => {
    const ids = new Map<unknown, number>();
    const log: string[] = [];
    const id = (x: unknown) => (x == null ? "-" : `e${ids.get(x) ?? (ids.set(x, ids.size + 1), ids.size)}`);
    const line = (s: string) => log.at(-1) !== s && log.push(s);
    const options = { retry: (n: number, e: unknown) => (log.push(`retry ${n} ${id(e)}`), n < 2), retryDelay: 1 };
    return { log, id, line, options };
  };
  return { shared: make(), plain: make() };
}

/** Three failures with `retry: n => n < 2`, as TanStack's retryer shows them. */
const THREE_FAILURES = [
  "retry 0 e1",
  "pending 1 reason e1 error -",
  "retry 1 e2",
  "pending 2 reason e2 error -",
  "retry 2 e3",
  "error 3 reason e3 error e3",
];

it("useQuery: failureReason is the error retry got for that failure, and error the last one, as in a plain useQuery", async () => {
  const [a] = twoTabs();
  server.failing = true;
  const s = sides();
  const [shared, plain] = sideBySide(server, a, "/reason");
  const status: Record<string, string> = {};
  function Pane({ side, options }: { side: Side; options: Options }) {
    const { id, line } = s[side];
    const q = useQuery({ ...options, ...s[side].options });
    status[side] = q.status;
    line(`${q.status} ${q.failureCount} reason ${id(q.failureReason)} error ${id(q.error)}`);
    return null;
  }
  render(
    app(
      a,
      <>
        <Pane side="shared" options={shared} />
        <Pane side="plain" options={plain} />
      </>,
    ),
  );
  await waitFor(() => expect(status).toEqual({ shared: "error", plain: "error" }));
  expect(s.plain.log).toEqual(["pending 0 reason - error -", ...THREE_FAILURES]);
  expect(s.shared.log).toEqual(s.plain.log);
});

it("useMutation with sharedMutationFn: failureReason and error are the objects retry got, as with a plain mutationFn", async () => {
  const [a] = twoTabs();
  server.failing = true;
  const s = sides();
  const shared = sharedMutationFn(a, () => ({ url: `${server.base}/s/items`, method: "POST", body: "{}" }), s.shared.options);
  const plain = async () => {
    const res = await fetch(`${server.base}/p/items`, { method: "POST", body: "{}" });
    if (!res.ok) throw new SharedFetchError({ message: `HTTP ${res.status}`, status: res.status });
  };
  const status: Record<string, string> = {};
  function Pane({ side, fn, options }: { side: Side; fn: () => Promise<unknown>; options: object }) {
    const { id, line } = s[side];
    const m = useMutation({ mutationFn: fn, ...options });
    status[side] = m.status;
    line(`${m.status} ${m.failureCount} reason ${id(m.failureReason)} error ${id(m.error)}`);
    return <button onClick={() => m.mutate()}>{`post ${side}`}</button>;
  }
  render(
    app(
      a,
      <>
        <Pane side="shared" fn={shared} options={{}} />
        <Pane side="plain" fn={plain} options={s.plain.options} />
      </>,
    ),
  );
  await act(() => ["shared", "plain"].forEach((side) => fireEvent.click(screen.getByText(`post ${side}`))));
  await waitFor(() => expect(status).toEqual({ shared: "error", plain: "error" }));
  expect(s.plain.log).toEqual(["idle 0 reason - error -", "pending 0 reason - error -", ...THREE_FAILURES]);
  expect(s.shared.log).toEqual(s.plain.log);
});
