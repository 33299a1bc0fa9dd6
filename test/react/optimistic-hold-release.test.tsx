// @vitest-environment jsdom
/**
 * README, optimistic updates: data the app set while a mutation of this tab was pending holds back
 * other replicas' results until no mutation is pending, then takes them as before. The hold ends
 * there, whatever happened meanwhile: a mutation started later, which set nothing, holds nothing
 * back, whether or not another replica recorded a result while the first one ran.
 * Real Yjs docs, two tabs of one browser, a real HTTP server on 127.0.0.1 that keeps the list.
 */
import { MutationObserver, QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { listHostForFile } from "../harness/list-host.ts";
import { pause, text, twoTabs } from "../harness/side-by-side.tsx";

type List = { items: string[] };

const host = listHostForFile();
afterEach(cleanup);

function Pane({ id, store }: { id: string; store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<List>(store, `${host.base}/s/list`));
  return (
    <>
      <span data-testid={id}>{q.data ? q.data.items.join(",") : q.status}</span>
      <button data-testid={`${id}-refresh`} onClick={() => void q.refetch()} />
    </>
  );
}

/** A mutation of `client` that stays pending until the returned function is called. */
function pendingMutation(client: QueryClient): () => Promise<void> {
  let settle = () => {};
  const done = new Promise<void>((resolve) => (settle = resolve));
  const running = new MutationObserver(client, { mutationFn: () => done }).mutate();
  return () => act(async () => (settle(), await running));
}

/** Tabs A and B of one browser showing the list, loaded; B's client to drive its mutations and sets. */
async function twoTabsShowingTheList() {
  const [a, b] = twoTabs();
  const client = new QueryClient();
  render(
    <>
      {app(a, <Pane id="a" store={a} />)}
      {app(b, <Pane id="b" store={b} />, client)}
    </>,
  );
  await waitFor(() => expect([text("a"), text("b")]).toEqual(["a", "a"]));
  await pause(30);
  const key = sharedQueryOptions<List>(b, `${host.base}/s/list`).queryKey;
  return { client, set: (items: string[]) => act(() => void client.setQueryData(key, { items })) };
}

/** Another client changes the list and A refreshes it: its result is recorded, requested after B's set. */
async function aRecordsANewerList(item: string) {
  host.lists.s.push(item);
  fireEvent.click(screen.getByTestId("a-refresh"));
  await waitFor(() => expect(text("a")).toContain(item));
}

describe("data set while a mutation was pending, after that mutation settled", () => {
  it("nothing recorded meanwhile: a later mutation that set nothing holds back no newer result", async () => {
    const { client, set } = await twoTabsShowingTheList();
    const first = pendingMutation(client);
    set(["a", "c"]); // optimistic
    await first();
    const later = pendingMutation(client); // unrelated, hung
    await aRecordsANewerList("x");
    await waitFor(() => expect(text("b")).toBe("a,x"));
    await later();
  });

  it("a result recorded meanwhile shows once it settles; a later mutation holds back no newer one either", async () => {
    const { client, set } = await twoTabsShowingTheList();
    const first = pendingMutation(client);
    set(["a", "c"]);
    await aRecordsANewerList("x");
    await pause(30);
    expect(text("b")).toBe("a,c");
    await first();
    await waitFor(() => expect(text("b")).toBe("a,x"));
    const later = pendingMutation(client);
    await aRecordsANewerList("y");
    await waitFor(() => expect(text("b")).toBe("a,x,y"));
    await later();
  });
});

describe("while the hold stands (a mutation that never settles)", () => {
  it.each([
    ["its own refetch", () => fireEvent.click(screen.getByTestId("b-refresh"))],
    ["invalidateQueries", (client: QueryClient) => act(() => client.invalidateQueries())],
  ] as const)("%s takes the newest, as a refetch after TanStack's optimistic set does", async (_, refetch) => {
    const { client, set } = await twoTabsShowingTheList();
    const hung = pendingMutation(client);
    set(["a", "c"]);
    await aRecordsANewerList("x");
    await pause(30);
    expect(text("b")).toBe("a,c");
    await refetch(client);
    await waitFor(() => expect(text("b")).toBe("a,x"));
    await hung();
  });
});
