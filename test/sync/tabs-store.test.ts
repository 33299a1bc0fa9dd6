import "fake-indexeddb/auto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";

/** A real HTTP host on 127.0.0.1 that counts requests and answers when told to. */
let server: Server;
let base = "";
const pending: ((body: unknown) => void)[] = [];
const served: string[] = [];
const waiters: (() => void)[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    served.push(req.url ?? "");
    pending.push((body) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)));
    waiters.splice(0).forEach((wake) => wake());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const requests = (n: number) =>
  new Promise<void>((resolve) => {
    const check = () => (served.length >= n ? resolve() : waiters.push(check));
    check();
  });

function tab(name: string, leaseMs: number) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, leaseMs, settleMs: 10 });
  return { doc, conn, store, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

describe("stores on connectTabs (BroadcastChannel + fake IndexedDB) against a real HTTP host", () => {
  it("two tabs share one request; the reply reaches both", async () => {
    const name = `tabs-${Math.random().toString(36).slice(2)}`;
    const [a, b] = [tab(name, 5000), tab(name, 5000)];
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    const url = `${base}/one`;
    const pa = a.store.ensure({ url });
    await requests(1);
    const pb = b.store.ensure({ url });
    pending.shift()!({ shared: true });
    await expect(Promise.all([pa, pb])).resolves.toEqual([
      { status: "success", data: { shared: true } },
      { status: "success", data: { shared: true } },
    ]);
    expect(served.filter((u) => u === "/one")).toHaveLength(1);
    a.close();
    b.close();
  });

  it("a tab opened after a crash finds the abandoned claim in IndexedDB and takes it over within a lease", async () => {
    const name = `tabs-${Math.random().toString(36).slice(2)}`;
    const a = tab(name, 300);
    await a.conn.whenSynced;
    const url = `${base}/crash`;
    void a.store.ensure({ url }).catch(() => {});
    const before = served.length;
    await requests(before + 1);
    // The crash: the tab stops talking (channel and persistence gone) without releasing its claim.
    a.conn.destroy();
    const b = tab(name, 300);
    await b.conn.whenSynced;
    expect(b.store.snapshot({ url })).toMatchObject({ status: "pending", claim: { replicaId: a.store.replicaId } });
    const pb = b.store.ensure({ url });
    await requests(before + 2); // b took over, after one lease of a's silence on its own clock
    pending.pop()!({ by: "b" });
    await expect(pb).resolves.toMatchObject({ status: "success", data: { by: "b" } });
    a.store.destroy();
    b.close();
  });
});
