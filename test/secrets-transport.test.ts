/**
 * Invariant 13 on every path: after success, refetch, error and program paths with a token in the
 * query, an Authorization / Cookie / X-Api-Key header and a POST body, no secret is in the encoded
 * doc, the localStorage copy, IndexedDB, BroadcastChannel frames, awareness states, the store's
 * inspect() and events, or another tab's doc; different credentials are different keys.
 */
import "fake-indexeddb/auto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore, sharedQueryKey, type SharedFetchStoreWithExtras, type StoreEvent } from "../src/index.ts";
import { indexedDbText } from "./harness/indexeddb-text.ts";

const S = {
  query: "q-SECRET-1a2b",
  auth: "auth-SECRET-3c4d",
  cookie: "cookie-SECRET-5e6f",
  apiKey: "apikey-SECRET-7a8b",
  body: "body-SECRET-9c0d",
  program: "prog-SECRET-e1f2",
  hash: "frag-SECRET-a3b4",
};
const ALL = Object.values(S);

let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/ok") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, n: Math.random() }));
      else if (path === "/fail") res.writeHead(500).end("nope");
      else if (path === "/app/main.ts") res.writeHead(200).end(`import { x } from "./dep.ts";\nexport const y = x;`);
      else if (path === "/app/dep.ts") res.writeHead(200).end(`export const x = 1;`);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A Map-backed localStorage (Node has none). */
const stored = new Map<string, string>();
(globalThis as { localStorage?: unknown }).localStorage = {
  getItem: (k: string) => stored.get(k) ?? null,
  setItem: (k: string, v: string) => void stored.set(k, String(v)),
  removeItem: (k: string) => void stored.delete(k),
};

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

function expectClean(what: string, text: string): void {
  for (const secret of ALL) expect(text, `${secret} in ${what}`).not.toContain(secret);
}

describe("invariant 13 on the transports", () => {
  it("no secret reaches the doc, localStorage, IndexedDB, BroadcastChannel frames, awareness, inspect() or events", async () => {
    const name = `hunt-${Math.random().toString(36).slice(2)}`;
    const frames: string[] = [];
    const spy = new BroadcastChannel(`shared-fetch:${name}`);
    spy.onmessage = (e: MessageEvent) => {
      const d = e.data as unknown;
      frames.push(d instanceof Uint8Array || d instanceof ArrayBuffer ? latin1(new Uint8Array(d as ArrayBuffer)) : JSON.stringify(d));
    };

    const docA = new Y.Doc();
    const tabA = connectTabs(docA, { name });
    await tabA.whenSynced;
    const a: SharedFetchStoreWithExtras = createSharedFetchStore({ doc: docA, awareness: tabA.awareness, identity: "alice", locks: null });
    const events: StoreEvent[] = [];
    a.onEvent((e) => events.push(e));

    const docB = new Y.Doc();
    const tabB = connectTabs(docB, { name });
    await tabB.whenSynced;
    const b: SharedFetchStoreWithExtras = createSharedFetchStore({ doc: docB, awareness: tabB.awareness, identity: "alice", locks: null });

    const secretHeaders = { authorization: `Bearer ${S.auth}`, cookie: `sid=${S.cookie}`, "x-api-key": S.apiKey };
    const get = { url: `${base}/ok?token=${S.query}#${S.hash}`, headers: secretHeaders };
    const post = { url: `${base}/ok?token=${S.query}`, method: "POST", headers: secretHeaders, body: JSON.stringify({ pw: S.body }) };
    const fail = { url: `${base}/fail?token=${S.query}`, method: "PUT", headers: secretHeaders, body: S.body };

    expect((await a.ensure(get)).status).toBe("success");
    expect((await a.ensure(post)).status).toBe("success");
    expect((await a.refetch(post)).status).toBe("success");
    expect((await a.ensure(fail)).status).toBe("error");
    const prog = await a.ensureProgram({ url: `${base}/app/main.ts?token=${S.program}#${S.hash}`, compile: true });
    expect(prog.status).toBe("success");
    // The other tab sees them (synced), and asks for one itself.
    await vi.waitFor(() => expect(b.snapshot(post).status).toBe("success"), { timeout: 10_000, interval: 10 });
    expect((await b.ensure(get)).status).toBe("success");

    // The localStorage copy (written a second after a change) and IndexedDB hold the last write, the program.
    const copyText = () =>
      [...stored.entries()]
        .map(([k, v]) => `${k}=${k.startsWith("shared-fetch:snapshot") ? latin1(Buffer.from(v, "base64")) : v}`)
        .join("\n");
    const lastWrite = "export const x = 1;";
    await vi.waitFor(
      async () => {
        expect(copyText()).toContain(lastWrite);
        expect(await indexedDbText(name)).toContain(lastWrite);
      },
      { timeout: 10_000, interval: 50 },
    );

    expectClean("doc A", latin1(Y.encodeStateAsUpdate(docA)));
    expectClean("doc B", latin1(Y.encodeStateAsUpdate(docB)));
    expectClean("doc JSON", JSON.stringify(docA.toJSON()));
    const copy = copyText();
    expect(copy).toContain("shared-fetch:snapshot");
    expectClean("localStorage", copy);
    expectClean("IndexedDB", await indexedDbText(name));
    expect(frames.length).toBeGreaterThan(0);
    expectClean("BroadcastChannel frames", frames.join("\n"));
    expectClean("awareness A", JSON.stringify([...tabA.awareness.getStates().entries()]));
    expectClean("awareness B", JSON.stringify([...tabB.awareness.getStates().entries()]));
    expectClean("inspect A", JSON.stringify(a.inspect()));
    expectClean("inspect B", JSON.stringify(b.inspect()));
    expectClean("events", JSON.stringify(events));
    expectClean("claims", JSON.stringify(a.claims()));
    for (const req of [get, post, fail]) expectClean("sharedQueryKey", JSON.stringify(sharedQueryKey(a, req)));

    a.destroy();
    b.destroy();
    tabA.destroy();
    tabB.destroy();
    spy.close();
  }, 20_000);

  it("identity scoping: the same URL with another Authorization header or another identity is another key", () => {
    const doc = new Y.Doc();
    const alice = createSharedFetchStore({ doc, identity: "alice", locks: null });
    const bob = createSharedFetchStore({ doc, identity: "bob", locks: null });
    const url = `${base}/ok`;
    const k1 = alice.keyOf({ url, headers: { authorization: "Bearer one" } });
    const k2 = alice.keyOf({ url, headers: { authorization: "Bearer two" } });
    const k3 = bob.keyOf({ url, headers: { authorization: "Bearer one" } });
    const k4 = alice.keyOf({ url, headers: { Authorization: "Bearer one" } });
    expect(new Set([k1, k2, k3]).size).toBe(3);
    expect(k4).toBe(k1);
    const q1 = sharedQueryKey(alice, { url, headers: { authorization: "Bearer one" } });
    const q3 = sharedQueryKey(bob, { url, headers: { authorization: "Bearer one" } });
    expect(q1).not.toEqual(q3);
    alice.destroy();
    bob.destroy();
  });
});
