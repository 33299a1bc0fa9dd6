/**
 * README ("Coming from TanStack Query"): relative URLs resolve against `location.href`, the key
 * holding the absolute URL. sharedQueryOptions and the hooks resolved them, but sharedQueryKey,
 * the helper for invalidateQueries and getQueryData, threw "is not a valid absolute URL" for the
 * very request a query was made with (and took no URL string), so a page written with relative
 * URLs could not name its own queries.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient } from "@tanstack/react-query";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedQueryKey, sharedQueryOptions } from "../../src/index.ts";

let server: Server;
let base = "";
let requests = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ n: requests }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => vi.unstubAllGlobals());

describe("sharedQueryKey with a relative URL, on a page", () => {
  it("is the key sharedQueryOptions made for it (as a string or { url }), and invalidateQueries by it refetches", async () => {
    vi.stubGlobal("location", { href: `${base}/app/page` });
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const client = new QueryClient();
    const options = sharedQueryOptions(store, "../api/items");
    expect(sharedQueryKey(store, "../api/items")).toEqual(options.queryKey);
    expect(sharedQueryKey(store, { url: "/api/items" })).toEqual(options.queryKey);
    expect(sharedQueryKey(store, { url: "/api/items" }).slice(0, 3)).toEqual(["shared-fetch", "GET", `${base}/api/items`]);

    const before = requests;
    expect(await client.fetchQuery(options)).toEqual({ n: before + 1 });
    await client.invalidateQueries({ queryKey: sharedQueryKey(store, { url: "/api/items" }), refetchType: "all" });
    expect(client.getQueryData(sharedQueryKey(store, "/api/items"))).toEqual({ n: before + 2 });
    expect(requests - before).toBe(2);
    client.clear();
    store.destroy();
  });
});
