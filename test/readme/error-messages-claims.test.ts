/**
 * README, "Error messages and bounds": a response no replica could read back — here one of more
 * than 1 000 000 values — is recorded as `result cannot be shared: …`, which ends the work at that
 * revision while the previous result stays, on every replica. The other bounds (depth, 1e999,
 * `__proto__`, maxResultBytes) are pinned by test/secrets.test.ts and test/shareable-results.test.ts;
 * this one needs a real body past 1 000 000 values, so a store whose maxResultBytes lets it in.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../src/index.ts";

let server: Server;
let base = "";
let requests = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    // First "good", then an array of 1 000 001 zeros (about 2 MB).
    const body = requests === 1 ? '"good"' : `[${"0,".repeat(1_000_000)}0]`;
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Two replicas on real Yjs docs that pass every update to each other. */
function twoReplicas() {
  const docs = [new Y.Doc(), new Y.Doc()] as const;
  docs[0].on("update", (update: Uint8Array, origin: unknown) => origin !== "peer" && Y.applyUpdate(docs[1], update, "peer"));
  docs[1].on("update", (update: Uint8Array, origin: unknown) => origin !== "peer" && Y.applyUpdate(docs[0], update, "peer"));
  return docs.map((doc) => createSharedFetchStore({ doc, locks: null, settleMs: 0, maxResultBytes: 4 * 1024 * 1024 }));
}

describe("README, Error messages and bounds: more than 1 000 000 values", () => {
  it("invariant 7: is recorded as `result cannot be shared`, once; the previous result stays on every replica", async () => {
    const [a, b] = twoReplicas();
    const req = { url: `${base}/values?page=1` };
    await expect(a!.ensure(req)).resolves.toEqual({ status: "success", data: "good" });
    const snapshot = await a!.refetch(req);
    const error = { message: `result cannot be shared: its data holds more than 1000000 values (GET ${base}/values?…)` };
    expect(snapshot).toEqual({ status: "error", data: "good", error });
    expect(b!.snapshot(req)).toEqual({ status: "error", data: "good", error });
    // The work ended at that revision: another replica's ask is answered by the record, not sent again.
    await expect(b!.ensure(req)).resolves.toEqual({ status: "error", data: "good", error });
    expect(requests).toBe(2);
    expect([a!.malformed(), b!.malformed()]).toEqual([[], []]);
    a!.destroy();
    b!.destroy();
  });
});
