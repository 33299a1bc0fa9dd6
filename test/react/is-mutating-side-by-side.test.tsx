// @vitest-environment jsdom
/**
 * README ("What differs"): useIsMutating counts this tab's own work, as TanStack counts one
 * client's: a mutation whose sharedMutationFn runs here counts while it runs, as a plain
 * useMutation's does, and so does one that joined an identical call another tab has in flight;
 * another tab's mutation counts nowhere here. Against a real HTTP server on 127.0.0.1.
 */
import { useIsMutating, useMutation } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { sharedMutationFn, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { sideBySideServer, text, twoTabs, type Body, type SideBySideServer } from "../harness/side-by-side.tsx";
import { app } from "../harness/render-app.tsx";

let server: SideBySideServer;
beforeAll(async () => {
  server = await sideBySideServer();
});
afterAll(() => server.close());
afterEach(() => {
  cleanup();
  server.reset();
});

type Mutate = { mutate: () => void; isMutating: number; data: Body | undefined };

function usePost(store: SharedFetchStoreWithExtras, side: "s" | "p"): Mutate {
  const shared = sharedMutationFn<void, Body>(store, () => ({ url: `${server.base}/s/items`, method: "POST", body: "{}" }));
  const plain = async () => (await (await fetch(`${server.base}/p/items`, { method: "POST", body: "{}" })).json()) as Body;
  const m = useMutation({ mutationFn: side === "s" ? shared : plain });
  return { mutate: () => m.mutate(), isMutating: useIsMutating(), data: m.data };
}

function Pane({ id, store, side }: { id: string; store: SharedFetchStoreWithExtras; side: "s" | "p" }) {
  const m = usePost(store, side);
  return (
    <>
      <span data-testid={id}>{`${m.isMutating} ${m.data ? m.data.n : "-"}`}</span>
      <button data-testid={`${id}-post`} onClick={m.mutate} />
    </>
  );
}
const post = (id: string) => fireEvent.click(screen.getByTestId(`${id}-post`));

it("useIsMutating is 1 while a sharedMutationFn runs in this tab, as for a plain useMutation, then 0", async () => {
  const [a] = twoTabs();
  server.held = [];
  render(
    <>
      {app(a, <Pane id="shared" store={a} side="s" />)}
      {app(a, <Pane id="plain" store={a} side="p" />)}
    </>,
  );
  expect([text("shared"), text("plain")]).toEqual(["0 -", "0 -"]);
  post("shared");
  post("plain");
  await waitFor(() => expect(server.held).toHaveLength(2));
  expect([text("shared"), text("plain")]).toEqual(["1 -", "1 -"]);
  act(() => server.held!.splice(0).forEach((answer) => answer()));
  await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["0 1", "0 1"]));
});

it("a tab whose identical call joined another tab's counts it while it waits; before its call, the other tab's counts nothing there", async () => {
  const [a, b] = twoTabs();
  server.held = [];
  render(
    <>
      {app(a, <Pane id="a" store={a} side="s" />)}
      {app(b, <Pane id="b" store={b} side="s" />)}
    </>,
  );
  post("a");
  await waitFor(() => expect(server.held).toHaveLength(1));
  expect(text("b")).toBe("0 -");
  post("b");
  await waitFor(() => expect(text("b")).toBe("1 -"));
  expect(text("a")).toBe("1 -");
  act(() => server.held!.splice(0).forEach((answer) => answer()));
  await waitFor(() => expect([text("a"), text("b")]).toEqual(["0 1", "0 1"]));
  expect(server.seen).toEqual(["/s/items"]);
});
