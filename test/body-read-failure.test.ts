/**
 * A connection that breaks while the body arrives (headers and a status already in) is a network
 * error, as one that breaks before: no `status`. With the 200 it carried, a TanStack retry written
 * as "no retry for a status below 500" (`(n, e) => !(e.status < 500)`) gave up on it, and in a
 * browser the page's own unload mid-body was recorded as the request's error for every tab at
 * once (a status marks an answer the host gave; only failures without one wait a page task for
 * pagehide: test/browser/navigate-away.test.ts).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";

let server: Server;
let base = "";
let calls = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    calls++;
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    // The first answer is cut off mid-body; the retry's is whole.
    if (calls === 1) res.write('{"items":[1,2', () => res.destroy());
    else res.end('{"items":[1,2,3]}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("a response cut off mid-body", () => {
  it("is a network error with no status, which a 'retry unless status < 500' policy retries", async () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
    const seen: { message: string; status?: number }[] = [];
    const retry = (count: number, error: { message: string; status?: number }) => {
      seen.push(error);
      return count < 1 && !(error.status !== undefined && error.status < 500);
    };
    const snapshot = await store.ensure({ url: `${base}/items?page=2` }, { retry, retryDelay: 0 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty("status");
    // The cause's words depend on how the socket went (closed, reset): a network error either way.
    expect(seen[0]!.message).toMatch(`reading the response of GET ${base}/items?… failed: network error (`);
    expect(snapshot).toMatchObject({ status: "success", data: { items: [1, 2, 3] } });
    expect(calls).toBe(2);
    store.destroy();
  });
});
