// @vitest-environment jsdom
/**
 * Streaming server rendering as a TanStack user writes it, beside a plain `useQuery`: on the
 * server (no window, document, location, indexedDB nor BroadcastChannel while it renders) a store
 * on a plain Y.Doc, `prefetchQuery` (awaited, or left pending and dehydrated with its promise),
 * `dehydrate`, `HydrationBoundary` and `renderToPipeableStream`; then `hydrateRoot` in jsdom with
 * the browser's own store. Against a real HTTP server on 127.0.0.1 that counts what it is sent:
 * the same HTML both ways, no hydration warning, and no request from the browser while fresh.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import {
  defaultShouldDehydrateQuery,
  dehydrate,
  HydrationBoundary,
  QueryClient,
  QueryClientProvider,
  useQuery,
  useSuspenseQuery,
  type DehydratedState,
  type QueryKey,
} from "@tanstack/react-query";
import { act, waitFor } from "@testing-library/react";
import { Suspense, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToPipeableStream } from "react-dom/server";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import {
  createSharedFetchStore,
  sharedQueryOptions,
  SharedFetchProvider,
  useSharedFetch,
  useSharedFetchSuspense,
  type SharedFetchStore,
} from "../../src/index.ts";

let server: http.Server;
let base = "";
const seen: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.url!);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ name: req.url!.slice(3) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => void (seen.length = 0));
afterEach(() => void vi.restoreAllMocks());

type Item = { name: string };
const OPTIONS = { staleTime: 60_000 };
const plainOptions = (path: string) => ({
  queryKey: ["plain", path] as QueryKey,
  queryFn: async () => (await (await fetch(`${base}/p/${path}`)).json()) as Item,
  ...OPTIONS,
});
const ALL_SHOWN = {
  hooks: "hooks",
  shared: "shared",
  plain: "plain",
  "suspense-shared": "suspense",
  "suspense-plain": "suspense",
  "hooks-suspense": "hooks-suspense",
};
const show = (id: string, q: { data?: Item | undefined; status: string }) => <p id={id}>{q.data ? q.data.name : q.status}</p>;

function HooksSuspense() {
  return show("hooks-suspense", useSharedFetchSuspense<Item>(`${base}/s/hooks-suspense`, OPTIONS));
}
function Hooks() {
  return show("hooks", useSharedFetch<Item>(`${base}/s/hooks`, OPTIONS));
}
function Shared({ store }: { store: SharedFetchStore }) {
  return show("shared", useQuery(sharedQueryOptions<Item>(store, `${base}/s/shared`, OPTIONS)));
}
function Plain() {
  return show("plain", useQuery(plainOptions("plain")));
}
function SuspenseShared({ store }: { store: SharedFetchStore }) {
  return show("suspense-shared", useSuspenseQuery(sharedQueryOptions<Item>(store, `${base}/s/suspense`, OPTIONS)));
}
function SuspensePlain() {
  return show("suspense-plain", useSuspenseQuery(plainOptions("suspense")));
}

/** Marks the Suspense boundary as hydrated: its effects run only once every pane in it rendered in the browser. */
let hydrated = false;
function Hydrated() {
  useEffect(() => void (hydrated = true), []);
  return null;
}

function App({ client, store, state }: { client: QueryClient; store: SharedFetchStore; state: DehydratedState }) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        <HydrationBoundary state={state}>
          <Hooks />
          <Shared store={store} />
          <Plain />
          <Suspense fallback={<p>waiting</p>}>
            <SuspenseShared store={store} />
            <SuspensePlain />
            <HooksSuspense />
            <Hydrated />
          </Suspense>
        </HydrationBoundary>
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/**
 * React's console errors into `warnings` until the spy is restored. One process plays server and
 * browser here: the streaming renderer and the client's each mark the same context objects as
 * theirs, which React warns of; apart, as deployed, neither sees it.
 */
const warningsInto = (warnings: unknown[]) =>
  vi.spyOn(console, "error").mockImplementation((...args) => {
    if (!String(args[0]).includes("Detected multiple renderers concurrently rendering the same context provider")) warnings.push(args);
  });
const BROWSER_ONLY = ["window", "document", "location", "navigator", "indexedDB", "BroadcastChannel", "localStorage"];

/** Runs `render` with the browser's globals gone, as on a server, and puts them back after. */
async function onServer<T>(render: () => Promise<T>): Promise<T> {
  for (const name of BROWSER_ONLY) vi.stubGlobal(name, undefined);
  try {
    return await render();
  } finally {
    vi.unstubAllGlobals();
  }
}

/**
 * The server's HTML and dehydrated state; `prefetch` "pending": not awaited, dehydrated pending
 * with their promise; "none": the suspending panes fetch while the server renders.
 */
function serverRender(prefetch: "awaited" | "pending" | "none") {
  const warnings: unknown[] = [];
  const spy = warningsInto(warnings);
  return onServer(async () => {
    expect(typeof window).toBe("undefined");
    const store = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
    const client = new QueryClient({
      defaultOptions: {
        dehydrate: { shouldDehydrateQuery: (q) => defaultShouldDehydrateQuery(q) || q.state.status === "pending" },
      },
    });
    const prefetches =
      prefetch === "none"
        ? []
        : [
            client.prefetchQuery(sharedQueryOptions<Item>(store, `${base}/s/hooks`, OPTIONS)),
            client.prefetchQuery(sharedQueryOptions<Item>(store, `${base}/s/shared`, OPTIONS)),
            client.prefetchQuery(plainOptions("plain")),
            client.prefetchQuery(sharedQueryOptions<Item>(store, `${base}/s/suspense`, OPTIONS)),
            client.prefetchQuery(plainOptions("suspense")),
            client.prefetchQuery(sharedQueryOptions<Item>(store, `${base}/s/hooks-suspense`, OPTIONS)),
          ];
    if (prefetch === "awaited") await Promise.all(prefetches);
    const state = dehydrate(client);
    const html = await new Promise<string>((resolve, reject) => {
      let out = "";
      const sink = new Writable({ write: (chunk: Buffer, _e, done) => void ((out += chunk.toString()), done()) });
      sink.on("finish", () => resolve(out));
      const stream = renderToPipeableStream(<App client={new QueryClient()} store={store} state={state} />, {
        onAllReady: () => stream.pipe(sink),
        onShellError: reject,
        onError: reject,
      });
    });
    await Promise.all(prefetches);
    store.destroy();
    spy.mockRestore();
    return { html, state, warnings };
  });
}

/**
 * Hydrates the server's HTML in jsdom with the browser's own store, then waits until every pane
 * shows `ALL_SHOWN`, its Suspense boundary hydrated: what React warned of, whether hydration left the HTML as it was, and how
 * many queries were fetching right after it (a fetch starts in the effects hydration runs).
 */
async function hydrateInBrowser(html: string, state: DehydratedState) {
  const container = document.createElement("div");
  container.innerHTML = html;
  document.body.appendChild(container);
  const before = container.innerHTML;
  const warnings: unknown[] = [];
  const spy = warningsInto(warnings);
  const store = createSharedFetchStore({ doc: new Y.Doc(), settleMs: 0, locks: null });
  const client = new QueryClient();
  hydrated = false;
  let root: ReturnType<typeof hydrateRoot> | undefined;
  const tree = <App client={client} store={store} state={state} />;
  await act(async () => void (root = hydrateRoot(container, tree, { onRecoverableError: (e) => void warnings.push(e) })));
  const unchanged = container.innerHTML === before;
  const fetching = client.isFetching();
  const text = () => Object.fromEntries([...container.querySelectorAll("p")].map((p) => [p.id, p.textContent]));
  await waitFor(() => expect({ hydrated, ...text() }).toEqual({ hydrated: true, ...ALL_SHOWN }));
  spy.mockRestore();
  act(() => root!.unmount());
  store.destroy();
  container.remove();
  return { warnings, unchanged, fetching };
}

it("prefetched and awaited on the server: the stream holds every pane's data, and the browser hydrates it with no request and no warning", async () => {
  const { html, state, warnings } = await serverRender("awaited");
  expect(warnings).toEqual([]);
  for (const name of ["hooks", "shared", "plain", "suspense"]) expect(html).toContain(`>${name}</p>`);
  expect(seen).toHaveLength(6);
  const client = await hydrateInBrowser(html, JSON.parse(JSON.stringify(state)) as DehydratedState);
  expect(client.warnings).toEqual([]);
  expect(client.unchanged).toBe(true);
  expect(client.fetching).toBe(0);
  expect(seen).toHaveLength(6);
});

it("prefetched and left pending: dehydrated with its promise, streamed once answered, hydrated with one request per key in all", async () => {
  const { html, state, warnings } = await serverRender("pending");
  expect(warnings).toEqual([]);
  expect(state.queries.filter((q) => q.state.status === "pending")).toHaveLength(6);
  expect(seen).toHaveLength(6);
  const client = await hydrateInBrowser(html, state);
  expect(client.warnings).toEqual([]);
  expect(client.fetching).toBe(0);
  expect(seen).toHaveLength(6);
});

it("nothing prefetched: the suspending panes fetch on the server and stream; the browser asks each key once more, as plain TanStack does, with no warning", async () => {
  const { html, state, warnings } = await serverRender("none");
  expect(warnings).toEqual([]);
  expect(html).toContain('<p id="suspense-shared">suspense</p>');
  expect(html).toContain('<p id="suspense-plain">suspense</p>');
  expect(html).toContain('<p id="shared">pending</p>');
  expect(html).toContain('<p id="plain">pending</p>');
  expect([...seen].sort()).toEqual(["/p/suspense", "/s/hooks-suspense", "/s/suspense"]);
  seen.length = 0;
  const client = await hydrateInBrowser(html, state);
  expect(client.warnings).toEqual([]);
  expect([...seen].sort()).toEqual(["/p/plain", "/p/suspense", "/s/hooks", "/s/hooks-suspense", "/s/shared", "/s/suspense"]);
});
