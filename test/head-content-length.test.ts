/**
 * A HEAD's answer carries the Content-Length of the body a GET would get, and no body (RFC 9110
 * §9.3.2): nothing of that size reaches the doc, so maxResultBytes has nothing to refuse. Before,
 * a HEAD to any resource larger than maxResultBytes (1 MiB by default) was recorded as "result
 * cannot be shared: the response … is 1.9 MiB", for every replica. A HEAD's empty answer is read
 * as a 204's: null with `parse: "json"` (the default), "" with `parse: "text"`. Before, it was ""
 * whatever `parse` said, where a 204 gave null: a HEAD's `data` was a string the app's JSON-typed
 * code never expected.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedRequest } from "../src/index.ts";

const SIZE = 2_000_000;
const HEADERS = { "content-type": "application/json", "content-length": String(SIZE) };
let server: Server;
let base = "";
const methods: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    methods.push(req.method!);
    req.resume();
    if (req.url === "/no-content") res.writeHead(204).end();
    else if (req.method === "HEAD") res.writeHead(200, HEADERS).end();
    else res.writeHead(200, HEADERS).end(JSON.stringify("x".repeat(SIZE - 2)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("HEAD of a resource larger than maxResultBytes", () => {
  it("succeeds (its Content-Length describes a body it does not carry)", async () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const snapshot = await store.ensure({ url: `${base}/video`, method: "HEAD" });
    expect(snapshot).toMatchObject({ status: "success", data: null });
    expect(methods).toEqual(["HEAD"]);
    store.destroy();
  });

  it("a HEAD's empty answer reads as a 204's: null for parse json (the default), \"\" for parse text", async () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const read = async (req: SharedRequest) => (await store.ensure(req)).data;
    const head = { url: `${base}/photo`, method: "HEAD" };
    const noContent = { url: `${base}/no-content`, method: "POST", body: "{}" };
    expect([await read(head), await read({ ...head, parse: "json" }), await read({ ...head, parse: "text" })]).toEqual([null, null, ""]);
    expect([await read(noContent), await read({ ...noContent, parse: "text" })]).toEqual([null, ""]);
    store.destroy();
  });

  it("a GET of the same resource is still refused by its Content-Length, unread", async () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const snapshot = await store.ensure({ url: `${base}/video` });
    expect(snapshot.error?.message).toBe(
      `result cannot be shared: the response to GET ${base}/video is 1.9 MiB (2000000 bytes), more than maxResultBytes (1048576 bytes)`,
    );
    store.destroy();
  });
});
