// @vitest-environment jsdom
/**
 * A fetch `Request` given where a shared request is expected (`useSharedFetch(new Request(url, {
 * headers }))`, a mutation function returning `new Request(url, { method: "POST", body })`) is
 * refused naming it, and nothing is sent. Before, the hooks, sharedQueryOptions and
 * sharedMutationFn copied it into `{ url }` (a Request's method, headers and body are getters a
 * spread skips): the query went out as a bare GET without its Authorization header, and the POST
 * as a GET without its body, while store.ensure refused the same Request.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedMutationFn, sharedQueryOptions, useSharedFetch, type SharedFetchStore } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";

let server: Server;
let base = "";
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "-"}`);
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  cleanup();
  seen.length = 0;
});

const REFUSED = "shared-fetch: request must be a URL string or { url, ... }, got a Request";
const newStore = () => createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
const noRetry = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

const request = () => new Request(`${base}/me`, { headers: { authorization: "Bearer t" } });
const shown = (query: { status: string; error: Error | null }) => (query.status === "error" ? query.error!.message : query.status);

function HookPane() {
  return <p data-testid="pane">{shown(useSharedFetch(request() as never))}</p>;
}

function OptionsPane({ store }: { store: SharedFetchStore }) {
  return <p data-testid="pane">{shown(useQuery(sharedQueryOptions(store, request() as never)))}</p>;
}

describe("a fetch Request given for a shared request is refused, not sent without its method, headers and body", () => {
  for (const hook of [true, false])
    it(`${hook ? "useSharedFetch" : "useQuery(sharedQueryOptions)"}: the query's error names the Request; no bare GET is sent`, async () => {
      const store = newStore();
      render(app(store as never, hook ? <HookPane /> : <OptionsPane store={store} />, noRetry()));
      await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe(REFUSED));
      expect(seen).toEqual([]);
      store.destroy();
    });

  it("sharedMutationFn: a mutation function returning a POST Request rejects naming it; no GET is sent", async () => {
    const store = newStore();
    const mutate = sharedMutationFn(store, (body: string) => new Request(`${base}/orders`, { method: "POST", body }) as never);
    await expect(mutate("{}")).rejects.toThrow(REFUSED);
    expect(seen).toEqual([]);
    store.destroy();
  });

  it("a plain { url, headers } is sent with its headers (the shape the README shows)", async () => {
    const store = newStore();
    const mutate = sharedMutationFn(store, () => ({ url: `${base}/orders`, method: "POST", headers: { authorization: "Bearer t" } }));
    await expect(mutate()).resolves.toEqual({});
    expect(seen).toEqual(["POST /orders Bearer t"]);
    store.destroy();
  });
});
