// @vitest-environment jsdom
/**
 * README, "A paused mutation resumed after a reload is one request across the tabs", the tab that
 * stayed open: tab A, offline, adds an order (`useMutation` pauses it before its first run; A's
 * persister saves it), tab B reloads while offline and restores it from the storage every tab
 * shares; back online both resume it. A's own call is named as B's restored copy is, so the two
 * join one POST (plain TanStack: one POST per tab). Two calls A paused at different moments stay
 * two POSTs, a call never paused is sent as before, and useMutation's own retry still sends again.
 * Real Yjs docs, TanStack's persister over one in-memory async storage, a real HTTP server on 127.0.0.1.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MutationObserver, onlineManager, QueryClient } from "@tanstack/react-query";
import { createAsyncStoragePersister } from "@tanstack/query-async-storage-persister";
import { PersistQueryClientProvider } from "@tanstack/react-query-persist-client";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SharedFetchProvider, sharedMutationFn, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { DAY, persistingBrowser } from "../harness/persister.tsx";
import { pause } from "../harness/side-by-side.tsx";

/** Every POST the host received: its path and Idempotency-Key. */
const posts: { path: string; key: string | undefined }[] = [];
/** How many of the next POSTs are answered 503. */
let failing = 0;
let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const key = req.headers["idempotency-key"];
      posts.push({ path: req.url ?? "", key: typeof key === "string" ? key : undefined });
      if (failing > 0 && failing--) return void res.writeHead(503).end("busy");
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ order: posts.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  cleanup();
  act(() => onlineManager.setOnline(true));
  posts.length = 0;
  failing = 0;
});

type Kind = "shared" | "plain";
const sent = (kind: Kind) => posts.filter((p) => p.path === `/${kind}/orders`);

/**
 * A tab rendered under PersistQueryClientProvider on the browser's storage, its mutation defaults
 * registered before any call (TanStack's docs for persisted mutations); it resumes what it restores.
 */
function openTab(b: ReturnType<typeof persistingBrowser>, kind: Kind, retry = 0) {
  const store: SharedFetchStoreWithExtras = b.tab();
  const client = new QueryClient({ defaultOptions: { queries: { gcTime: DAY } } });
  const url = `${base}/${kind}/orders`;
  const post = (item: string) => ({ url, method: "POST", body: JSON.stringify({ item }) });
  client.setMutationDefaults(["order"], {
    retry,
    retryDelay: 0,
    mutationFn:
      kind === "shared"
        ? sharedMutationFn(store, post)
        : async (item: string) => {
            const res = await fetch(url, { method: "POST", body: post(item).body });
            if (!res.ok) throw new Error(`HTTP ${res.status}`);
            return res.json();
          },
  });
  const persister = createAsyncStoragePersister({ storage: b.storage, throttleTime: 0 });
  render(
    <PersistQueryClientProvider
      client={client}
      persistOptions={{ persister, maxAge: DAY }}
      onSuccess={() => void client.resumePausedMutations()}
    >
      <SharedFetchProvider store={store}>{null}</SharedFetchProvider>
    </PersistQueryClientProvider>,
  );
  const states = () =>
    client
      .getMutationCache()
      .getAll()
      .map((m) => m.state);
  const order = (item: string) =>
    void new MutationObserver<unknown, Error, string>(client, { mutationKey: ["order"] }).mutate(item).catch(() => {});
  return { client, store, states, order };
}

type Tab = ReturnType<typeof openTab>;

const persistedMutations = (b: ReturnType<typeof persistingBrowser>): number => {
  const raw = [...b.storage.items.values()][0];
  return raw ? (JSON.parse(raw) as { clientState: { mutations: unknown[] } }).clientState.mutations.length : 0;
};

async function settled(tab: Tab, statuses: string[]) {
  await waitFor(() => expect(tab.states().map((s) => s.status)).toEqual(statuses));
}

/** Offline: A orders `items` (each paused, 3 ms apart), its persister saves them; B reloads and restores them. */
async function pausedInAThenRestoredInB(kind: Kind, items: string[]) {
  const b = persistingBrowser();
  const a = openTab(b, kind);
  await pause(10); // A restored (nothing yet) and mounted
  act(() => onlineManager.setOnline(false));
  for (const item of items) {
    a.order(item);
    await pause(3);
  }
  await waitFor(() => expect(persistedMutations(b)).toBe(items.length));
  expect(a.states().map((s) => s.isPaused)).toEqual(items.map(() => true));
  const reloaded = openTab(b, kind);
  await waitFor(() => expect(reloaded.states().map((s) => s.isPaused)).toEqual(items.map(() => true)));
  return { a, reloaded };
}

describe("a mutation paused in a tab that stays open, restored by a tab that reloads meanwhile", () => {
  it.each([
    ["shared", 1],
    ["plain", 2],
  ] as const)("%s: both resume it when back online: %i POST", async (kind, expected) => {
    const { a, reloaded } = await pausedInAThenRestoredInB(kind, ["book"]);
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success"]);
    await settled(reloaded, ["success"]);
    await pause(50);
    expect(sent(kind)).toHaveLength(expected);
    // One call, one outcome in both tabs.
    if (kind === "shared") expect(reloaded.states()[0]!.data).toEqual(a.states()[0]!.data);
  });

  it.each([
    ["shared", 2],
    ["plain", 4],
  ] as const)("%s: two orders with equal variables paused at different moments stay two: %i POSTs", async (kind, expected) => {
    const { a, reloaded } = await pausedInAThenRestoredInB(kind, ["book", "book"]);
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success", "success"]);
    await settled(reloaded, ["success", "success"]);
    await pause(50);
    expect(sent(kind)).toHaveLength(expected);
    if (kind === "shared") {
      // Two calls, each with an Idempotency-Key of its own, each the same call in both tabs.
      expect(new Set(sent(kind).map((p) => p.key)).size).toBe(2);
      expect(reloaded.states().map((s) => s.data)).toEqual(a.states().map((s) => s.data));
      expect(new Set(a.states().map((s) => JSON.stringify(s.data))).size).toBe(2);
    }
  });

  it("two orders with equal variables paused in the open tab alone, resumed together: 2 POSTs", async () => {
    const b = persistingBrowser();
    const a = openTab(b, "shared");
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book");
    await pause(3);
    a.order("book");
    await pause(3);
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success", "success"]);
    await pause(50);
    expect(sent("shared")).toHaveLength(2);
    expect(new Set(sent("shared").map((p) => p.key)).size).toBe(2);
  });

  it("a paused call that fails is sent again by useMutation's retry, with a new Idempotency-Key", async () => {
    const b = persistingBrowser();
    const a = openTab(b, "shared", 1);
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book");
    await pause(3);
    failing = 1;
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success"]);
    expect(sent("shared")).toHaveLength(2);
    const [first, second] = sent("shared").map((p) => p.key);
    expect(first).toBeTruthy();
    expect(second).not.toBe(first);
  });

  it("calls never paused are sent as before: unnamed, identical ones in flight joined, a later one sent again", async () => {
    const b = persistingBrowser();
    const a = openTab(b, "shared");
    await pause(10);
    const ensure = vi.spyOn(a.store, "ensure");
    a.order("book");
    a.order("book");
    await settled(a, ["success", "success"]);
    expect(sent("shared")).toHaveLength(1);
    a.order("book");
    await settled(a, ["success", "success", "success"]);
    expect(sent("shared")).toHaveLength(2);
    expect(new Set(sent("shared").map((p) => p.key)).size).toBe(2);
    expect(ensure.mock.calls.filter(([req]) => typeof req === "object" && "callId" in req)).toEqual([]);
  });
});
