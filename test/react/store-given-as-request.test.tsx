// @vitest-environment jsdom
/**
 * A store given where a request is expected (`useSharedFetch(store)`, `store.ensure(store)`: the
 * arguments of sharedQueryOptions(store, req) or of a helper taken one place off) says what
 * happened. A store is a plain object, so it was read as a request whose first field is unknown:
 * "unknown request field \"replicaId\"", a name the app never wrote.
 */
import { QueryClient } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedQueryKey, useSharedFetch, type SharedFetchStore } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";

afterEach(cleanup);

const MIXED_UP = "shared-fetch: got a SharedFetchStore where a request was expected";
const newStore = () => createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });

function Pane({ store }: { store: SharedFetchStore }) {
  const query = useSharedFetch(store as never);
  return <p data-testid="pane">{query.status === "error" ? query.error.message : query.status}</p>;
}

describe("bad input: a store given as the request is named as a store, not as an unknown field `replicaId`", () => {
  it("store.ensure(store), store.snapshot(store), store.subscribe(store, …), sharedQueryKey(store, store)", async () => {
    const store = newStore();
    await expect(store.ensure(store as never)).rejects.toThrow(MIXED_UP);
    expect(() => store.snapshot(store as never)).toThrow(MIXED_UP);
    expect(() => store.subscribe(store as never, () => {})).toThrow(MIXED_UP);
    expect(() => sharedQueryKey(store, store as never)).toThrow(MIXED_UP);
    store.destroy();
  });

  it("useSharedFetch(store): the query's error says a store was given", async () => {
    const store = newStore();
    render(app(store as never, <Pane store={store} />, new QueryClient({ defaultOptions: { queries: { retry: false } } })));
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe(MIXED_UP));
    store.destroy();
  });

  it("a plain request with a field named like a store's is still refused as an unknown field", () => {
    const store = newStore();
    expect(() => store.snapshot({ url: "https://a.test/x", replicaId: "r" } as never)).toThrow(/unknown request field "replicaId"/);
    // A request that happens to carry an `ensure` function is no store: its field is named.
    expect(() => store.snapshot({ url: "https://a.test/x", ensure: () => {} } as never)).toThrow(/unknown request field "ensure"/);
    store.destroy();
  });
});
