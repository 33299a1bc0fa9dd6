/**
 * Devices as a TanStack Query user has them: each its own Y.Doc, connectPeers to one y-websocket
 * server on 127.0.0.1, store and QueryClient, rendered with @testing-library/react, all asking one
 * real HTTP host on 127.0.0.1 that counts what it is sent.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, QueryClientProvider, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { useState, type ReactNode } from "react";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import {
  connectPeers,
  createSharedFetchStore,
  SharedFetchProvider,
  sharedMutationFn,
  sharedQueryOptions,
  useSharedFetchStore,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { linkGate, type LinkGate } from "../sync/link-gate.ts";
import { startSyncServer, type SyncServer } from "../sync/ws-server.ts";

/** What GET /items answers: the items posted so far and how many GETs the host answered. */
export type Items = { items: string[]; gets: number };

export type ItemsHost = {
  base: string;
  /** Methods asked, in order ("GET", "POST"). */
  seen: string[];
  gets(): number;
  /** While true, every GET is answered 500. */
  failing: boolean;
  /** While an array, GETs are answered (with what the host held when asked) only when the test calls them. */
  held: (() => void)[] | null;
};

/** The list's options in a test (refetchOnWindowFocus is off unless given). */
export type ListOptions = { staleTime?: number; refetchInterval?: number; refetchOnWindowFocus?: boolean };

/**
 * The HTTP host and the sync server for the test file, each device's teardown after each test, and
 * the panes a device renders: `List` shows the items (testid = name) and the host's GET count that
 * answered them (`${name}-n`), `Add` posts an item and invalidates the list (refetchType "all"),
 * `ListWithAdd` both, `Routed` a list that its "toggle NAME" button unmounts and mounts again (a
 * route change); `lists(ds)` is each device showing its `List`.
 */
export function devicesForFile() {
  let http: Server;
  let sync: SyncServer;
  const host: ItemsHost = { base: "", seen: [], gets: () => host.seen.filter((m) => m === "GET").length, failing: false, held: null };
  const items: string[] = [];
  const teardown: (() => void)[] = [];
  beforeAll(async () => {
    sync = await startSyncServer();
    http = createServer((req, res) => {
      host.seen.push(req.method!);
      if (req.method === "POST") {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () => {
          items.push((JSON.parse(body) as { name: string }).name);
          res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
        });
        return;
      }
      if (host.failing) return void res.writeHead(500).end("down");
      const answer = JSON.stringify({ items: [...items], gets: host.gets() } satisfies Items);
      const send = () => res.writeHead(200, { "content-type": "application/json" }).end(answer);
      if (host.held) host.held.push(send);
      else send();
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    host.base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await sync.close();
  });
  afterEach(() => {
    cleanup();
    for (const stop of teardown.splice(0)) stop();
    host.seen.length = 0;
    host.failing = false;
    host.held = null;
    items.length = 0;
  });

  const room = () => `devices-${Math.random().toString(36).slice(2)}`;

  /** A device on `room`; with `gated`, through a link that can go down (the device offline). */
  async function device(name: string, roomName: string, gated = false) {
    let link: LinkGate | undefined;
    if (gated) {
      link = await linkGate(sync.url);
      teardown.push(link.close);
    }
    const doc = new Y.Doc();
    const peers = connectPeers(doc, { url: link?.url ?? sync.url, room: roomName, WebSocketPolyfill: WebSocket });
    const store = createSharedFetchStore({ doc, awareness: peers.awareness, identity: "u1" }) as SharedFetchStoreWithExtras;
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    teardown.push(() => (store.destroy(), peers.destroy(), doc.destroy(), client.clear()));
    const wrap = (children: ReactNode) => (
      <QueryClientProvider client={client} key={name}>
        <SharedFetchProvider store={store}>{children}</SharedFetchProvider>
      </QueryClientProvider>
    );
    return { name, doc, peers, store, client, link, wrap };
  }
  /** `count` devices (named a, b, c) on a new room, each synced. */
  async function devices(count: number) {
    const r = room();
    const all = await Promise.all(Array.from({ length: count }, (_, i) => device("abc"[i]!, r)));
    await Promise.all(all.map((d) => d.peers.whenSynced));
    return all;
  }
  /** Devices a and b on a new room, each synced, b through a link that can go down. */
  async function aAndGatedB() {
    const r = room();
    const a = await device("a", r);
    const b = await device("b", r, true);
    await Promise.all([a.peers.whenSynced, b.peers.whenSynced]);
    return [a, b] as const;
  }

  function List({ name, options = {} }: { name: string; options?: ListOptions }) {
    const store = useSharedFetchStore();
    const q = useQuery(sharedQueryOptions<Items>(store, `${host.base}/items`, { refetchOnWindowFocus: false, ...options }));
    return (
      <>
        <span data-testid={name}>
          {q.data ? q.data.items.join(",") || "empty" : q.status}
          {q.isError ? " error" : ""}
        </span>
        <i data-testid={`${name}-n`}>{q.data?.gets}</i>
      </>
    );
  }

  function Add({ name }: { name: string }) {
    const client = useQueryClient();
    const add = useMutation({
      mutationFn: sharedMutationFn(useSharedFetchStore(), (item: string) => ({
        url: `${host.base}/items`,
        method: "POST",
        body: JSON.stringify({ name: item }),
      })),
      onSuccess: () => client.invalidateQueries({ queryKey: ["shared-fetch", "GET", `${host.base}/items`], refetchType: "all" }),
    });
    return <button onClick={() => add.mutate("x")}>add {name}</button>;
  }

  function ListWithAdd({ name, options }: { name: string; options?: ListOptions }) {
    return (
      <>
        <List name={name} options={options} />
        <Add name={name} />
      </>
    );
  }

  /** A's list and B's routed one rendered, B's then toggled away: B shows nothing while A's list asks. */
  async function showAWithBAway(a: Device, b: Device, options: ListOptions) {
    render(
      <>
        {a.wrap(<List name="a" options={options} />)}
        {b.wrap(<Routed d={b} options={options} />)}
      </>,
    );
    await press("toggle b");
  }

  function lists(ds: Device[], options?: ListOptions) {
    return <>{ds.map((d) => d.wrap(<List name={d.name} options={options} />))}</>;
  }

  function Routed({ d, options }: { d: Device; options?: ListOptions }) {
    const [on, setOn] = useState(true);
    return (
      <>
        <button onClick={() => setOn(!on)}>toggle {d.name}</button>
        {on ? <List name={d.name} options={options} /> : null}
      </>
    );
  }

  return { host, room, device, devices, aAndGatedB, List, Add, ListWithAdd, Routed, lists, showAWithBAway };
}

export type Device = Awaited<ReturnType<ReturnType<typeof devicesForFile>["device"]>>;
/** The fetch status of the device's one query. */
export const fetching = (d: Device) => d.client.getQueryCache().getAll()[0]?.state.fetchStatus;
/** Waits until the devices show `texts` (testid: each name, followed by `suffix`), then until none fetches. */
export async function settledOn(ds: Device[], texts: string[], suffix = "") {
  await waitFor(() => expect(ds.map((d) => shown(d.name + suffix))).toEqual(texts));
  await waitFor(() => expect(ds.map(fetching)).toEqual(ds.map(() => "idle")));
}
/** The device's link goes down; resolves once its provider has seen it. */
export async function cutOff(d: Device) {
  d.link!.down();
  await waitFor(() => expect(d.peers.provider.wsconnected).toBe(false));
}
export const press = (text: string) => act(() => [...document.querySelectorAll("button")].find((b) => b.textContent === text)!.click());
/** The changes in what `id` showed, from now until the returned function is called. */
export function watchShown(id: string): () => string[] {
  const seen: string[] = [];
  const o = new MutationObserver(() => seen.push(shown(id)!));
  o.observe(screen.getByTestId(id), { childList: true, characterData: true, subtree: true });
  return () => (o.disconnect(), seen.filter((t, i) => t !== seen[i - 1]));
}

export const shown = (id: string) => screen.getByTestId(id).textContent;
