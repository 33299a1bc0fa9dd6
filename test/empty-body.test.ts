/**
 * An empty body with `parse: "json"` (the default): a mutation's 200 or 201 with no body
 * succeeded, and records null as a 204 does (before, `sharedMutationFn`'s POST the server accepted
 * showed as failed: "not valid JSON"), and `""` with `parse: "text"` (README, Identical mutations
 * in flight join: "with `parse: "text"` each is `""`"); a GET's empty 200 stays an error, which
 * never replaces a recorded result with null (invariant 7).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";

let server: Server;
let base = "";
let empty = false;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (empty) res.writeHead(req.method === "POST" ? 201 : 200).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ n: 1 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const store = () => createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });

describe("an empty response body", () => {
  it.each(["POST", "PUT", "PATCH", "DELETE"])("%s answered with no body: success, data null", async (method) => {
    empty = true;
    const s = store();
    const snap = await s.ensure({ url: `${base}/orders`, method, ...(method === "DELETE" ? {} : { body: "{}" }) });
    expect(snap).toMatchObject({ status: "success", data: null });
    s.destroy();
  });

  it.each(["POST", "DELETE"])('%s answered with no body, parse "text": success, data ""', async (method) => {
    empty = true;
    const s = store();
    const snap = await s.ensure({ url: `${base}/orders`, method, parse: "text", ...(method === "DELETE" ? {} : { body: "{}" }) });
    expect(snap).toMatchObject({ status: "success", data: "" });
    s.destroy();
  });

  it("an OPTIONS answered with no body is an error, as a GET's", async () => {
    empty = true;
    const s = store();
    expect((await s.ensure({ url: `${base}/items`, method: "OPTIONS" })).error?.message).toMatch(/not valid JSON/);
    s.destroy();
  });

  it("a GET's empty 200 is an error, and the result recorded before it stays (invariant 7)", async () => {
    const s = store();
    empty = false;
    expect(await s.ensure({ url: `${base}/items` })).toMatchObject({ status: "success", data: { n: 1 } });
    empty = true;
    const after = await s.refetch({ url: `${base}/items` });
    expect(after.error?.message).toMatch(/not valid JSON/);
    expect(after.data).toEqual({ n: 1 });
    s.destroy();
  });
});
