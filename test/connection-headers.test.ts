import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchInputError } from "../src/index.ts";

let server: Server;
let base = "";
let requests = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * README ("Error messages"): inputs fetch would refuse are refused up front with
 * SharedFetchInputError, nothing written. Node's fetch refuses these request headers outright
 * (browsers drop them: they are forbidden request headers), so a store in Node recorded a bare
 * "network error" into the shared doc for what is bad input, shown by every replica.
 */
describe("headers fetch refuses are bad input, not a recorded network error", () => {
  it.each(["Transfer-Encoding", "Upgrade", "Expect", "Keep-Alive", "Connection", "Content-Length"])(
    "%s: rejected at once naming the header; nothing written",
    async (name) => {
      const doc = new Y.Doc();
      const store = createSharedFetchStore({ doc, locks: null, settleMs: 0 });
      const updates: Uint8Array[] = [];
      doc.on("update", (u: Uint8Array) => updates.push(u));
      const outcome = await store.ensure({ url: `${base}/x`, headers: { [name]: "value-secret-3d" } }).then(
        (snapshot) => snapshot,
        (error: unknown) => error,
      );
      expect(outcome).toBeInstanceOf(SharedFetchInputError);
      expect((outcome as Error).message).toContain(JSON.stringify(name));
      expect((outcome as Error).message).not.toContain("value-secret-3d");
      expect(updates).toEqual([]);
      expect(requests).toBe(0);
      store.destroy();
    },
  );

  // Node's fetch sends a Content-Length only when it is the body's exact length and fails the
  // request otherwise; a browser drops it. Either way the body fixes it, and a wrong one was
  // recorded as "network error (request body does not match its Content-Length)" for every replica.
  it("a POST whose Content-Length does not match its body: rejected at once, no error record in the doc", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, locks: null, settleMs: 0 });
    const req = { url: `${base}/orders`, method: "POST" as const, headers: { "Content-Length": "5" }, body: "x" };
    await expect(store.ensure(req)).rejects.toThrow('header "Content-Length" does not match the body, 1 bytes long: leave it to fetch');
    expect(store.inspect().keys).toEqual([]);
    expect(requests).toBe(0);
    store.destroy();
  });

  it("a Content-Length that is the body's exact length (UTF-8 bytes) is sent, and keys the request as one without it", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, locks: null, settleMs: 0 });
    const body = JSON.stringify({ name: "café" });
    const req = { url: `${base}/orders`, method: "POST" as const, headers: { "Content-Length": String(Buffer.byteLength(body)) }, body };
    expect(store.keyOf(req)).toBe(store.keyOf({ url: req.url, method: "POST", body }));
    const before = requests;
    const snapshot = await store.ensure(req);
    expect(snapshot.status).toBe("success");
    expect(requests - before).toBe(1);
    store.destroy();
  });
});
