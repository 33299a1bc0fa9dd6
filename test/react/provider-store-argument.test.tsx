// @vitest-environment jsdom
/**
 * Bad input is named where it was given: a SharedFetchProvider handed something that is not a store
 * (the Y.Doc, or the connection connectTabs returns, in place of createSharedFetchStore's store)
 * throws at its render naming `store` and what came. Before, the first useSharedFetch under it threw
 * "sharedQueryOptions: the first argument must be a shared-fetch store", a function the app never
 * called. No store at all is still the hooks' own "No shared-fetch store set".
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { SharedFetchProvider, useSharedFetch } from "../../src/index.ts";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function Pane() {
  const q = useSharedFetch("https://api.example.test/items");
  return <span>{q.status}</span>;
}

const rendered = (store: unknown) => () =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store as never}>
        <Pane />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );

describe("SharedFetchProvider's store (bad input names the value and what was expected)", () => {
  it("a Y.Doc or a connection given for the store is named by the provider", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const doc = new Y.Doc();
    expect(rendered(doc)).toThrow(
      new TypeError("SharedFetchProvider: `store` must be a shared-fetch store (createSharedFetchStore, connectBrowser), got a Doc"),
    );
    const connection = { whenSynced: Promise.resolve(), awareness: {}, destroy() {} };
    expect(rendered(connection)).toThrow(/^SharedFetchProvider: `store` must be a shared-fetch store .*got an object$/);
  });

  it("no store at all is the hooks' own message", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(rendered(undefined)).toThrow(/^No shared-fetch store set/);
  });
});
