// @vitest-environment jsdom
/**
 * As reconnect-joins-in-flight.test.tsx, through Hocuspocus: device B loses its connection (its
 * socket closes, its reconnect is refused: offline) while device A refetches. B comes back online:
 * TanStack's `refetchOnReconnect` asks before the provider's back-off (`reconnectDelayMs`) connects
 * again. That claim connects at once and waits for the sync, so B joins A's request; it used to be
 * claimed while cut off, and both devices sent it. The server runs in this process on 127.0.0.1.
 */
import "fake-indexeddb/auto";
import { Server } from "@hocuspocus/server";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore, SharedFetchProvider, sharedQueryOptions } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { linkGate } from "./link-gate.ts";
import { nextEvent } from "./wait.ts";

const teardown: (() => unknown)[] = [];
afterEach(async () => {
  cleanup();
  for (const stop of teardown.splice(0).reverse()) await stop();
});

const URL_ITEMS = "https://api.example.test/items";
// B's back-off: its next try after the refused one comes a second or more later (jittered).
const RECONNECT_DELAY_MS = 1000;

function device(url: string, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { url, room, token: "t", WebSocketPolyfill: WebSocket, reconnectDelayMs: RECONNECT_DELAY_MS });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name) });
  const client = new QueryClient();
  teardown.push(() => (store.destroy(), conn.destroy(), doc.destroy(), client.clear()));
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
  return { conn, client, ui };
}

const shown = (name: string) => screen.getByTestId(name).textContent;

it("Hocuspocus: refetchOnReconnect on a device back online joins the request another device sent while it was offline: one request", async () => {
  const port = await freePort();
  const server = new Server({ port, address: "127.0.0.1", quiet: true, stopOnSignals: false });
  await server.listen();
  teardown.push(() => server.destroy());
  const link = await linkGate(`ws://127.0.0.1:${port}`);
  teardown.push(link.close);
  const room = `reconnect-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  const a = device(`ws://127.0.0.1:${port}`, room, host, "a");
  const b = device(link.url, room, host, "b");
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
  // The start is not what this test is about: every request sent then is answered.
  host.auto = () => ({ status: 200, body: { n: 1 } });
  render(
    <>
      {a.ui}
      {b.ui}
    </>,
  );
  await waitFor(() => expect([shown("a"), shown("b")]).toEqual(["1", "1"]));
  host.auto = undefined;
  const started = host.calls.length;

  // B offline: its socket closes, and its reconnect is refused (cut off for a while).
  const closed = nextEvent(b.conn.websocket, "disconnect");
  link.down();
  await closed;
  await nextEvent(b.conn.websocket, "disconnect");
  act(() => void a.client.invalidateQueries({ queryKey: ["shared-fetch"] }));
  await host.whenCalls(started + 1);

  // Back online: TanStack refetches at once, before the provider's back-off connects again.
  link.up();
  const synced = nextEvent(b.conn.provider, "synced");
  act(() => b.client.getQueryCache().onOnline());
  await waitFor(() => expect(b.client.getQueryCache().getAll()[0]!.state.fetchStatus).toBe("fetching"));
  await synced;
  host.calls[started]!.respond(200, { n: 2 });
  await waitFor(() => expect([shown("a"), shown("b")]).toEqual(["2", "2"]));
  expect(host.calls.slice(started).map((call) => call.from)).toEqual(["a"]);
}, 20_000);
