// @vitest-environment jsdom
/**
 * SSR and hydration: a server prefetches with sharedQueryOptions into a QueryClient (store on a
 * plain Y.Doc, no sync) against a real HTTP host on 127.0.0.1 and dehydrates; the client hydrates
 * with hydrateRoot and renders the data with no request while it is fresh, and no hydration warning.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { dehydrate, HydrationBoundary, QueryClient, QueryClientProvider, type DehydratedState } from "@tanstack/react-query";
import { act } from "@testing-library/react";
import type { ReactNode } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedQueryOptions, SharedFetchProvider, useSharedFetch, type SharedFetchStore } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { wiredDocs } from "../harness/replicas.ts";

let server: http.Server;
let url = "";
let requests = 0;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify([{ id: 1, name: "one" }]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/items`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Item = { id: number; name: string };
const OPTIONS = { staleTime: 60_000 };

function Items() {
  const q = useSharedFetch<Item[]>(url, OPTIONS);
  return (
    <ul data-fetching={String(q.isFetchingAnywhere)} data-claim={q.claim ? (q.claim.mine ? "mine" : "another replica's") : "none"}>
      {q.isSuccess ? q.data.map((i) => <li key={i.id}>{i.name}</li>) : <li>loading</li>}
    </ul>
  );
}

function App({ client, store, state }: { client: QueryClient; store: SharedFetchStore; state: DehydratedState }) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        <HydrationBoundary state={state}>
          <Items />
        </HydrationBoundary>
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** The app without a HydrationBoundary: only what the store has. */
function Plain({ store }: { store: SharedFetchStore }) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Items />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** Hydrates the server's HTML with `tree`; what React logged and reported as recoverable errors. */
/** A return visit's doc: a past visit recorded the result, and this one starts with it (IndexedDB or the copy in localStorage). */
async function returnVisitDoc(): Promise<Y.Doc> {
  const past = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
  await past.ensure({ url });
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(internalsOf(past).records.doc));
  past.destroy();
  return doc;
}

async function hydrate(html: string, tree: ReactNode) {
  const container = document.createElement("div");
  container.innerHTML = html;
  document.body.appendChild(container);
  const problems: unknown[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((...args) => problems.push(args));
  const recoverable: unknown[] = [];
  await act(async () => {
    hydrateRoot(container, tree, { onRecoverableError: (e) => recoverable.push(e) });
  });
  await act(() => new Promise((r) => setTimeout(r, 50)));
  spy.mockRestore();
  return { container, problems, recoverable };
}

describe("SSR: prefetch + dehydrate on the server, hydrateRoot on the client", () => {
  it("the client renders the server's data with 0 requests while fresh, and no hydration mismatch", async () => {
    // Server: a store on a plain doc, no sync.
    const serverStore = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
    const serverClient = new QueryClient();
    await serverClient.prefetchQuery(sharedQueryOptions<Item[]>(serverStore, url, OPTIONS));
    const state = JSON.parse(JSON.stringify(dehydrate(serverClient))) as DehydratedState;
    const html = renderToString(<App client={new QueryClient()} store={serverStore} state={state} />);
    expect(html).toContain("<li>one</li>");
    expect(requests).toBe(1);
    serverStore.destroy();

    // Client: its own store and doc, nothing recorded; the dehydrated state is all it has.
    const clientFetch = vi.fn(globalThis.fetch);
    const clientStore = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null, fetch: clientFetch });
    const { container, problems, recoverable } = await hydrate(html, <App client={new QueryClient()} store={clientStore} state={state} />);
    expect(container.innerHTML).toBe(html);
    expect(clientFetch).not.toHaveBeenCalled();
    expect(requests).toBe(1);
    expect(problems).toEqual([]);
    expect(recoverable).toEqual([]);
    clientStore.destroy();
  });

  it("in Node (no page location) a relative URL is a clear error", () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null });
    const saved = Object.getOwnPropertyDescriptor(globalThis, "location");
    Object.defineProperty(globalThis, "location", { value: undefined, configurable: true });
    try {
      const options = sharedQueryOptions(store, "/api/items");
      return expect(new QueryClient().fetchQuery(options)).rejects.toThrow(/"\/api\/items" is relative and there is no page location/);
    } finally {
      if (saved) Object.defineProperty(globalThis, "location", saved);
      store.destroy();
    }
  });

  // What the server rendered, hydrated by a client whose doc holds more than the server's store
  // had: the first client render must match the server's HTML (React would discard it and log a
  // recoverable error), then show what this browser knows.
  const hydrateWithout = (clientStore: SharedFetchStore, html: string) => hydrate(html, <Plain store={clientStore} />);
  const serverHtml = () => {
    const serverStore = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
    const html = renderToString(<Plain store={serverStore} />);
    serverStore.destroy();
    return html;
  };

  it("no prefetch, and the client's doc holds a recorded result (a return visit): hydrates without a mismatch, then shows it with no request", async () => {
    const html = serverHtml();
    expect(html).toContain("<li>loading</li>");
    const doc = await returnVisitDoc();
    const before = requests;
    const clientStore = createSharedFetchStore({ doc, settleMs: 0, locks: null });
    const { container, problems, recoverable } = await hydrateWithout(clientStore, html);
    expect(recoverable).toEqual([]);
    expect(problems).toEqual([]);
    expect(container.querySelector("ul")!.textContent).toBe("one");
    expect(requests).toBe(before);
    clientStore.destroy();
  });

  it("another replica's claim standing at hydration: no mismatch (the server had none), then the pane says work is in flight", async () => {
    const html = serverHtml();
    expect(html).toContain('data-claim="none"');
    const [theirs, ours] = wiredDocs(2);
    const hung = createSharedFetchStore({ doc: theirs!, settleMs: 0, locks: null, fetch: () => new Promise<Response>(() => {}) });
    void hung.ensure({ url: `${url}?other` }).catch(() => {});
    void hung.ensure({ url }).catch(() => {});
    const clientStore = createSharedFetchStore({ doc: ours!, settleMs: 0, locks: null });
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(clientStore.snapshot({ url }).claim?.mine).toBe(false);
    const { container, problems, recoverable } = await hydrateWithout(clientStore, html);
    expect(recoverable).toEqual([]);
    expect(problems).toEqual([]);
    expect(container.querySelector("ul")!.getAttribute("data-claim")).toBe("another replica's");
    hung.destroy();
    clientStore.destroy();
  });

  it("refetchOnMount: false, the client's doc holding a stale result (a return visit): hydrates without a mismatch and shows it with no request, as a client render does", async () => {
    function NoMountRefetch() {
      const q = useSharedFetch<Item[]>(url, { refetchOnMount: false });
      return <ul>{q.isSuccess ? q.data.map((i) => <li key={i.id}>{i.name}</li>) : <li>loading</li>}</ul>;
    }
    const app = (store: SharedFetchStore) => (
      <QueryClientProvider client={new QueryClient()}>
        <SharedFetchProvider store={store}>
          <NoMountRefetch />
        </SharedFetchProvider>
      </QueryClientProvider>
    );
    const serverStore = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
    const html = renderToString(app(serverStore));
    serverStore.destroy();
    const doc = await returnVisitDoc();
    // Stale (staleTime 0) but on the page: refetchOnMount: false says no request on mount.
    const before = requests;
    const clientStore = createSharedFetchStore({ doc, settleMs: 0, locks: null });
    const { container, problems, recoverable } = await hydrate(html, app(clientStore));
    expect(recoverable).toEqual([]);
    expect(problems).toEqual([]);
    expect(container.querySelector("ul")!.textContent).toBe("one");
    expect(requests).toBe(before);
    clientStore.destroy();
  });
});
