/**
 * A HEAD's answer carries the Content-Length of the body a GET would get, and no body (RFC 9110
 * §9.3.2): nothing of that size reaches the doc, so maxResultBytes has nothing to refuse. Before,
 * a HEAD to any resource larger than maxResultBytes (1 MiB by default) was recorded as "result
 * cannot be shared: the response … is 1.9 MiB", for every replica. And a HEAD's result is its
 * empty body as text whatever `parse` says, so `parse` no longer splits one HEAD into two keys.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";

const SIZE = 2_000_000;
let server: Server;
let base = "";
const methods: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    methods.push(req.method!);
    req.resume();
    res.writeHead(200, { "content-type": "application/json", "content-length": String(SIZE) });
    if (req.method === "HEAD") res.end();
    else res.end(JSON.stringify("x".repeat(SIZE - 2)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("HEAD of a resource larger than maxResultBytes", () => {
  it("succeeds (its Content-Length describes a body it does not carry)", async () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const snapshot = await store.ensure({ url: `${base}/video`, method: "HEAD" });
    expect(snapshot).toMatchObject({ status: "success", data: "" });
    expect(methods).toEqual(["HEAD"]);
    store.destroy();
  });

  it("parse is moot for a HEAD (the result is its empty body as text): one key, one request, whichever it was given", async () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const url = `${base}/photo`;
    const keys = [
      { url, method: "HEAD" },
      { url, method: "head", parse: "json" as const },
      { url, method: "HEAD", parse: "text" as const },
    ];
    expect(new Set(keys.map((req) => store.keyOf(req))).size).toBe(1);
    const before = methods.length;
    const snapshots = await Promise.all(keys.map((req) => store.ensure(req)));
    expect(snapshots.map((snapshot) => snapshot.data)).toEqual(["", "", ""]);
    expect(methods.length - before).toBe(1);
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
