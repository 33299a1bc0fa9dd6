// @vitest-environment jsdom
/**
 * Two devices through y-websocket, each showing `useQuery(sharedQueryOptions(…))`. Device B loses
 * its connection (its socket closes, its reconnects are refused: offline); meanwhile device A
 * refetches. B comes back: the browser's online event reaches TanStack before y-websocket's next
 * reconnect (its back-off), and `refetchOnReconnect` asks at once. That claim waits for B's
 * connection to sync again, as a first claim waits for the initial sync, so B joins A's request
 * rather than sending it a second time. It used to be claimed at once (cut off, nobody to race),
 * and both devices sent it.
 */
import "fake-indexeddb/auto";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, connectTabs, createSharedFetchStore, SharedFetchProvider, sharedQueryOptions } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { linkGate } from "./link-gate.ts";
import { nextEvent } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(() => server.close());
const teardown: (() => void)[] = [];
afterEach(() => {
  cleanup();
  for (const stop of teardown.splice(0)) stop();
});

async function gate(target: string) {
  const link = await linkGate(target);
  teardown.push(link.close);
  return link;
}

const URL_ITEMS = "https://api.example.test/items";

function device(url: string, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name: `${room}-${name}`, indexeddb: false });
  const peers = connectPeers(doc, { url, room, WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs(name) });
  const client = new QueryClient();
  teardown.push(() => (store.destroy(), peers.destroy(), tabs.destroy(), doc.destroy(), client.clear()));
  function Items() {
    const q = useQuery(sharedQueryOptions<{ n: number }>(store, URL_ITEMS, { staleTime: 0, refetchOnWindowFocus: false }));
    return <span data-testid={name}>{q.data?.n ?? q.status}</span>;
  }
  const ui = (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        <Items />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
  return { peers, client, ui };
}

const shown = (name: string) => screen.getByTestId(name).textContent;

/**
 * Devices A and B show the items (one request, answered); B goes offline (its socket closes, and a
 * reconnect is refused, so it has been cut off for a while); A refetches meanwhile: its request is
 * the host's second call, not answered yet.
 */
async function bOfflineWhileARefetches() {
  const room = `reconnect-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  const link = await gate(server.url);
  const a = device(server.url, room, host, "a");
  const b = device(link.url, room, host, "b");
  await Promise.all([a.peers.whenSynced, b.peers.whenSynced]);
  render(
    <>
      {a.ui}
      {b.ui}
    </>,
  );
  await host.whenCalls(1);
  host.calls[0]!.respond(200, { n: 1 });
  await waitFor(() => expect([shown("a"), shown("b")]).toEqual(["1", "1"]));

  // B offline: its socket closes, and a reconnect is refused (so it has been cut off for a while).
  const closed = nextEvent(b.peers.provider, "connection-close");
  link.down();
  await closed;
  await nextEvent(b.peers.provider, "connection-close");
  act(() => void a.client.invalidateQueries({ queryKey: ["shared-fetch"] }));
  await host.whenCalls(2);
  return { host, link, a, b };
}

it("refetchOnReconnect on a device back online joins the request another device sent while it was offline: one request", async () => {
  const { host, link, b } = await bOfflineWhileARefetches();

  // Back online: TanStack refetches at once, before y-websocket's back-off reconnects.
  link.up();
  act(() => b.client.getQueryCache().onOnline());
  await waitFor(() => expect(b.client.getQueryCache().getAll()[0]!.state.fetchStatus).toBe("fetching"));
  await nextEvent(b.peers.provider, "sync", (synced: boolean) => synced);
  host.calls[1]!.respond(200, { n: 2 });
  await waitFor(() => expect([shown("a"), shown("b")]).toEqual(["2", "2"]));
  expect(host.calls.map((call) => call.from)).toEqual([host.calls[0]!.from, "a"]);
}, 20_000);

it("refetchOnReconnect on a device back online shows the result another device recorded while it was offline, with no request", async () => {
  const { host, link, b } = await bOfflineWhileARefetches();
  host.calls[1]!.respond(200, { n: 2 });
  await waitFor(() => expect(shown("a")).toBe("2"));

  link.up();
  act(() => b.client.getQueryCache().onOnline());
  await waitFor(() => expect(shown("b")).toBe("2"));
  await waitFor(() => expect(b.client.getQueryCache().getAll()[0]!.state.fetchStatus).toBe("idle"));
  expect(host.calls.map((call) => call.from)).toEqual([host.calls[0]!.from, "a"]);
}, 20_000);
