// @vitest-environment jsdom
/**
 * TanStack's optimistic update recipe on a list two tabs show, side by side with plain TanStack:
 * onMutate cancels the list query and sets the optimistic list, onError rolls back to the
 * snapshot, onSettled invalidates. Shared: one POST, one refetch after it for both tabs, tab B never
 * shows an older list after a newer one, a failure rolls back in A alone; another tab's result
 * waits while this tab's add runs (its optimistic item stays shown, as in one tab), and shows once
 * it settles. useMutationState shows the variables of this tab's pending call (a joined one
 * included), as in plain TanStack.
 * Real Yjs docs, two tabs of one browser, a real HTTP server on 127.0.0.1 that keeps the list.
 */
import { useMutation, useMutationState, useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedMutationFn, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { listHostForFile, type Side } from "../harness/list-host.ts";
import { pause, text, twoTabs } from "../harness/side-by-side.tsx";

type List = { items: string[] };

const host = listHostForFile();
afterEach(cleanup);

const sent = (side: Side, method: string) => host.seen.filter((r) => r.method === method && r.path.startsWith(`/${side}/`));
const release = (held: (() => void)[] | null) => act(() => held!.splice(0).forEach((go) => go()));

/** The list query and the add mutation of one side, with TanStack's optimistic update recipe. */
function useList(store: SharedFetchStoreWithExtras, side: Side, invalidate: boolean) {
  const client = useQueryClient();
  const getList = async ({ signal }: { signal: AbortSignal }) => (await (await fetch(`${host.base}/p/list`, { signal })).json()) as List;
  const list =
    side === "s"
      ? (sharedQueryOptions<List>(store, `${host.base}/s/list`) as unknown as { queryKey: QueryKey; queryFn: typeof getList })
      : { queryKey: ["plain", "list"] as QueryKey, queryFn: getList };
  const post = (item: string) => ({ url: `${host.base}/${side}/items`, method: "POST", body: JSON.stringify({ item }) });
  const q = useQuery(list);
  const add = useMutation({
    mutationKey: ["add", side],
    mutationFn:
      side === "s"
        ? sharedMutationFn<string, List>(store, post)
        : async (item: string) => {
            const res = await fetch(post(item).url, { method: "POST", body: post(item).body });
            if (!res.ok) throw new Error(`HTTP ${res.status}`);
            return (await res.json()) as List;
          },
    onMutate: async (item: string) => {
      await client.cancelQueries({ queryKey: list.queryKey });
      const previous = client.getQueryData<List>(list.queryKey);
      client.setQueryData<List>(list.queryKey, (old) => ({ items: [...(old?.items ?? []), item] }));
      return { previous };
    },
    onError: (_error, _item, context) => client.setQueryData(list.queryKey, context?.previous),
    onSettled: () => (invalidate ? client.invalidateQueries({ queryKey: list.queryKey }) : undefined),
  });
  const pending = useMutationState({ filters: { mutationKey: ["add", side], status: "pending" }, select: (m) => m.state.variables });
  return { q, add, pending };
}

/** One tab's pane: the list shown (each change logged), the pending adds, an add button. */
function Pane({
  id,
  store,
  side,
  log,
  invalidate = true,
}: {
  id: string;
  store: SharedFetchStoreWithExtras;
  side: Side;
  log: string[];
  invalidate?: boolean;
}) {
  const { q, add, pending } = useList(store, side, invalidate);
  const shown = q.data ? q.data.items.join(",") : q.status;
  if (log.at(-1) !== shown) log.push(shown);
  return (
    <>
      <span data-testid={id}>{shown}</span>
      <span data-testid={`${id}-pending`}>{pending.join(",")}</span>
      <button data-testid={`${id}-add`} onClick={() => add.mutate("b")} />
      <button data-testid={`${id}-add-c`} onClick={() => add.mutate("c")} />
      <button data-testid={`${id}-refresh`} onClick={() => void q.refetch()} />
    </>
  );
}

/** Tabs a and b of one browser, each showing `side`'s list, loaded. */
async function twoTabsShowingTheList(side: Side, bInvalidates = true) {
  const [a, b] = twoTabs();
  const logs = { a: [] as string[], b: [] as string[] };
  render(
    <>
      {app(a, <Pane id="a" store={a} side={side} log={logs.a} />)}
      {app(b, <Pane id="b" store={b} side={side} log={logs.b} invalidate={bInvalidates} />)}
    </>,
  );
  await waitFor(() => expect([text("a"), text("b")]).toEqual(["a", "a"]));
  await pause(30);
  host.seen.length = 0;
  return logs;
}
const add = (id: string) => fireEvent.click(screen.getByTestId(`${id}-add`));

describe("the optimistic update recipe on a list two tabs show", () => {
  it.each([
    ["s", 1, ["a", "a,b"]],
    ["p", 1, ["a"]],
  ] as const)("%s: A adds an item: %i POST, one refetch after it, B's list: %j", async (side, gets, bShows) => {
    const logs = await twoTabsShowingTheList(side);
    add("a");
    await waitFor(() => expect(text("a")).toBe("a,b")); // optimistic
    await waitFor(() => expect(sent(side, "GET")).toHaveLength(gets));
    await waitFor(() => expect(text("b")).toBe(bShows.at(-1)));
    await pause(50);
    expect(sent(side, "POST")).toHaveLength(1);
    expect(sent(side, "GET")).toHaveLength(gets);
    expect(logs.a).toEqual(["pending", "a", "a,b"]);
    expect(logs.b).toEqual(["pending", ...bShows]);
  });

  it.each([
    ["s", 1, 1],
    ["p", 2, 2],
  ] as const)("%s: both tabs add the same item at once: %i POST, %i refetch after it", async (side, posts, gets) => {
    const logs = await twoTabsShowingTheList(side);
    add("a");
    add("b");
    await waitFor(() => expect([text("a"), text("b")]).toEqual([side === "s" ? "a,b" : "a,b,b", side === "s" ? "a,b" : "a,b,b"]));
    await pause(50);
    expect(sent(side, "POST")).toHaveLength(posts);
    expect(sent(side, "GET")).toHaveLength(gets);
    if (side === "s")
      expect([logs.a, logs.b]).toEqual([
        ["pending", "a", "a,b"],
        ["pending", "a", "a,b"],
      ]);
  });

  it.each(["s", "p"] as const)(
    "%s: B's refresh in flight when A adds: A's optimistic list stays, B never shows an older list after a newer one",
    async (side) => {
      const logs = await twoTabsShowingTheList(side);
      host.heldGets = [];
      fireEvent.click(screen.getByTestId("b-refresh"));
      await waitFor(() => expect(sent(side, "GET")).toHaveLength(1));
      const older = host.heldGets;
      host.heldGets = null;
      add("a");
      await waitFor(() => expect(sent(side, "POST")).toHaveLength(1));
      await waitFor(() => expect(text("a")).toBe("a,b"));
      // Shared: A's refetch cannot abort B's request, sent before the add: it waits for it, then sends its own.
      await pause(50);
      expect(sent(side, "GET")).toHaveLength(side === "s" ? 1 : 2);
      release(older);
      await waitFor(() => expect(sent(side, "GET")).toHaveLength(2));
      await waitFor(() => expect(text("b")).toBe(side === "s" ? "a,b" : "a"));
      await pause(50);
      expect(sent(side, "GET")).toHaveLength(2);
      // The older answer, read before the add, replaced A's optimistic list in neither.
      expect(logs.a).toEqual(["pending", "a", "a,b"]);
      expect(logs.b).toEqual(side === "s" ? ["pending", "a", "a,b"] : ["pending", "a"]);
    },
  );

  it.each(["s", "p"] as const)("%s: the add fails: A rolls back, B keeps its list, one refetch after it", async (side) => {
    const logs = await twoTabsShowingTheList(side);
    host.failing = true;
    add("a");
    await waitFor(() => expect(text("a")).toBe("a,b"));
    await waitFor(() => expect(text("a")).toBe("a"));
    await waitFor(() => expect(sent(side, "GET")).toHaveLength(1));
    await pause(50);
    expect(sent(side, "POST")).toHaveLength(1);
    expect(sent(side, "GET")).toHaveLength(1);
    expect(logs.a).toEqual(["pending", "a", "a,b", "a"]);
    expect(logs.b).toEqual(["pending", "a"]);
  });

  it.each([
    ["s", 1, 1],
    ["p", 2, 2],
  ] as const)(
    "%s: both tabs add the same item at once and it fails: both roll back, %i POST, %i refetch after it",
    async (side, posts, gets) => {
      const logs = await twoTabsShowingTheList(side);
      host.failing = true;
      add("a");
      add("b");
      await waitFor(() => expect(sent(side, "GET")).toHaveLength(gets));
      await waitFor(() => expect([text("a"), text("b")]).toEqual(["a", "a"]));
      await pause(50);
      expect(sent(side, "POST")).toHaveLength(posts);
      expect(sent(side, "GET")).toHaveLength(gets);
      expect([logs.a, logs.b]).toEqual([
        ["pending", "a", "a,b", "a"],
        ["pending", "a", "a,b", "a"],
      ]);
    },
  );
});

describe("two tabs add different items at once (each its own POST)", () => {
  it.each([
    ["s", ["pending", "a", "a,b", "a,b,c"]],
    ["p", ["pending", "a", "a,b"]],
  ] as const)(
    "%s: A's refetch after its add, answered while B's add runs, leaves B's optimistic item shown; A's list: %j",
    async (side, aShows) => {
      const logs = await twoTabsShowingTheList(side);
      host.heldPosts = [];
      add("a");
      fireEvent.click(screen.getByTestId("b-add-c"));
      await waitFor(() => expect(host.heldPosts).toHaveLength(2));
      await waitFor(() => expect([text("a"), text("b")]).toEqual(["a,b", "a,c"]));
      const [first, second] = host.heldPosts;
      act(() => first!());
      // A's add settled once its onSettled refetch was answered: that list is recorded.
      await waitFor(() => expect(text("a-pending")).toBe(""));
      expect(sent(side, "GET")).toHaveLength(1);
      await pause(50);
      // B's add is still pending: its optimistic item stays, as TanStack's recipe keeps it in one tab.
      expect(text("b")).toBe("a,c");
      act(() => second!());
      await waitFor(() => expect(text("b")).toBe("a,b,c"));
      await waitFor(() => expect(text("a")).toBe(aShows.at(-1)));
      await pause(50);
      expect(sent(side, "POST")).toHaveLength(2);
      expect(sent(side, "GET")).toHaveLength(2);
      expect(logs.a).toEqual(aShows);
      expect(logs.b).toEqual(["pending", "a", "a,c", "a,b,c"]);
    },
  );
});

describe("a result held back while this tab's add runs", () => {
  it("B's add has no onSettled invalidation: A's newer list, requested after B's set, shows in B once its add settles", async () => {
    const logs = await twoTabsShowingTheList("s", false);
    host.heldPosts = [];
    fireEvent.click(screen.getByTestId("b-add-c"));
    await waitFor(() => expect(text("b")).toBe("a,c"));
    host.lists.s.push("x"); // another client's change
    fireEvent.click(screen.getByTestId("a-refresh"));
    await waitFor(() => expect(text("a")).toBe("a,x"));
    await pause(50);
    expect(text("b")).toBe("a,c");
    release(host.heldPosts);
    await waitFor(() => expect(text("b")).toBe("a,x"));
    expect(logs.b).toEqual(["pending", "a", "a,c", "a,x"]);
  });
});

describe("useMutationState({ filters: { mutationKey, status: 'pending' } })", () => {
  it.each(["s", "p"] as const)(
    "%s: shows this tab's pending call's variables, not another tab's; a call that joined shows its own",
    async (side) => {
      await twoTabsShowingTheList(side);
      host.heldPosts = [];
      add("a");
      await waitFor(() => expect(host.heldPosts).toHaveLength(1));
      expect([text("a-pending"), text("b-pending")]).toEqual(["b", ""]);
      add("b");
      await waitFor(() => expect(text("b-pending")).toBe("b"));
      await pause(30);
      // Shared: B's identical call joined A's POST; plain: B sent its own.
      expect(host.heldPosts).toHaveLength(side === "s" ? 1 : 2);
      expect(text("a-pending")).toBe("b");
      release(host.heldPosts);
      await waitFor(() => expect([text("a-pending"), text("b-pending")]).toEqual(["", ""]));
    },
  );
});
