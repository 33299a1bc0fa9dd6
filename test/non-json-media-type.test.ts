/**
 * A body that is not JSON under `parse: "json"` names the response's media type: a Vite dev server
 * (or a host's single-page fallback) answers an unknown `/api/items` with its `index.html` and a
 * 200, and the error said only "is not valid JSON (HTTP 200 OK)", where TanStack's `res.json()`
 * at least showed "Unexpected token '<'". The media type alone is named (a token: no parameter,
 * nothing else the host wrote), so an error record still holds no text of the host's (invariant 13).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";

let server: Server;
let base = "";
const TYPES: Record<string, string | undefined> = {
  "/api/items": "text/html",
  "/charset": "text/plain; charset=utf-8",
  "/hostile": "token=s3cret",
  "/none": undefined,
};
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const type = TYPES[req.url!];
    res.writeHead(200, type ? { "content-type": type } : {}).end("<!doctype html><title>app</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("a non-JSON body names its media type, and nothing else of the host's", () => {
  it.each([
    ["/api/items", "HTTP 200 OK, text/html"],
    ["/charset", "HTTP 200 OK, text/plain"],
    ["/hostile", "HTTP 200 OK"],
    ["/none", "HTTP 200 OK"],
  ])("%s: (%s)", async (path, said) => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const snapshot = await store.ensure({ url: `${base}${path}` });
    expect(snapshot.error).toEqual({ message: `response of GET ${base}${path} is not valid JSON (${said})`, status: 200 });
    store.destroy();
  });
});
