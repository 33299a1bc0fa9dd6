import "fake-indexeddb/auto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import {
  connectBrowser,
  connectTabs,
  createSharedFetchStore,
  SharedFetchInputError,
  type SharedFetchStoreWithExtras,
} from "../src/index.ts";
import { indexedDbText } from "./harness/indexeddb-text.ts";

/** Every secret the suite hands to the store or the host; none may reach the doc or IndexedDB. */
const SECRETS = {
  query: "q-token-7d1f",
  password: "pw-secret-93ab",
  user: "user-secret-41c2",
  header: "hdr-token-5e0a",
  body: "body-secret-b71c",
  program: "prog-token-c2d9",
  thrown: "thrown-secret-ff02",
};
const ALL = Object.values(SECRETS);

/** Echoes the request (URL with its query, headers, body) back in the status text and body, as careless hosts do. */
function echo(req: IncomingMessage, body: string): string {
  return `${req.url} ${JSON.stringify(req.headers)} ${body}`;
}

let server: Server;
let base = "";
let closedBase = "";
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const said = echo(req, body);
      if (path === "/fail") res.writeHead(500, `Broken ${req.url}`).end(said);
      else if (path === "/html") res.writeHead(200).end(`<html>${said}</html>`);
      else if (path === "/big") {
        const big = JSON.stringify({ said, pad: "x".repeat(2_000_000) });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(big) }).end(big);
      } else if (path === "/big-chunked") {
        res.writeHead(200, { "transfer-encoding": "chunked" });
        res.write(`{"said":${JSON.stringify(said)},"pad":"`);
        res.end(`${"y".repeat(2_000_000)}"}`);
      } else if (path === "/deep") res.writeHead(200).end(`${"[".repeat(70)}${JSON.stringify(said)}${"]".repeat(70)}`);
      else if (path === "/app/main.ts") res.writeHead(200).end(`import "./missing.ts";\nexport const x = 1;`);
      else if (path === "/app/broken.tsx") res.writeHead(200).end(`export const a = <div>{"${req.url}"</div>;`);
      else res.writeHead(404, `Nothing at ${req.url}`).end(said);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nobody listens on any more: connection refused.
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, "127.0.0.1", resolve));
  closedBase = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

/** One tab on connectTabs (BroadcastChannel + fake IndexedDB) with a store on the real fetch. */
async function tab(fetchFn?: typeof fetch) {
  const name = `secrets-${Math.random().toString(36).slice(2)}`;
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  await conn.whenSynced;
  const store: SharedFetchStoreWithExtras = createSharedFetchStore({
    doc,
    awareness: conn.awareness,
    settleMs: 0,
    locks: null,
    ...(fetchFn ? { fetch: fetchFn } : {}),
  });
  /** Waits until IndexedDB holds `marker` (the failure's record is persisted), then checks every secret. */
  const scan = async (marker: string) => {
    let stored = await indexedDbText(name);
    for (let i = 0; i < 200 && !stored.includes(marker); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      stored = await indexedDbText(name);
    }
    const encoded = utf8(Y.encodeStateAsUpdate(doc));
    expect(encoded, "the doc holds the failure's record").toContain(marker);
    expect(stored, "IndexedDB holds the failure's record").toContain(marker);
    for (const secret of ALL) {
      expect(encoded, `secret ${secret} in the encoded doc`).not.toContain(secret);
      expect(stored, `secret ${secret} in IndexedDB`).not.toContain(secret);
    }
  };
  const close = () => {
    store.destroy();
    conn.destroy();
    doc.destroy();
  };
  return { doc, store, scan, close };
}

const withSecrets = (path: string) => ({
  url: `${base}${path}?token=${SECRETS.query}`,
  method: "POST",
  headers: { authorization: `Bearer ${SECRETS.header}` },
  body: JSON.stringify({ password: SECRETS.body }),
});

describe("invariant 13: no secret reaches the doc or IndexedDB through an error record", () => {
  it.each([
    [
      "an HTTP error whose status text and body echo the request",
      "/fail",
      /^HTTP 500 Internal Server Error from POST http:\/\/127\.0\.0\.1:\d+\/fail\?…$/,
    ],
    [
      "a response that is not JSON and echoes the request",
      "/html",
      /^response of POST http:\/\/127\.0\.0\.1:\d+\/html\?… is not valid JSON \(HTTP 200 OK\)$/,
    ],
    ["a 404 whose status text quotes the URL", "/nowhere", /^HTTP 404 Not Found from POST/],
    [
      "a body over maxResultBytes (Content-Length)",
      "/big",
      /^result cannot be shared: the response to POST .*\/big\?… is 1\.9 MiB \(\d+ bytes\), more than maxResultBytes \(1048576 bytes\)$/,
    ],
    [
      "a body over maxResultBytes (chunked)",
      "/big-chunked",
      /^result cannot be shared: the response to POST .*\/big-chunked\?… is more than maxResultBytes \(1048576 bytes\)$/,
    ],
    ["JSON nested deeper than any replica reads", "/deep", /^result cannot be shared: .*nested more than 64 levels/],
  ])("%s", async (_what, path, message) => {
    const t = await tab();
    const snap = await t.store.ensure(withSecrets(path));
    expect(snap.status).toBe("error");
    expect(snap.error!.message).toMatch(message);
    await t.scan(path);
    t.close();
  });

  it("a refused connection: the message names the cause, not fetch's text", async () => {
    const t = await tab();
    const snap = await t.store.ensure({ ...withSecrets("/refused"), url: `${closedBase}/refused?token=${SECRETS.query}` });
    expect(snap.error!.message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/refused\?… failed: network error \(connection refused\)$/);
    await t.scan("/refused");
    t.close();
  });

  it("a fetch (a dependency) that throws an error quoting the request: only 'network error' is kept", async () => {
    const leaky: typeof fetch = (input, init) =>
      Promise.reject(new TypeError(`cannot send ${String(input)} with ${JSON.stringify(init?.headers)} ${SECRETS.thrown}`));
    const t = await tab(leaky);
    const snap = await t.store.ensure(withSecrets("/thrown"));
    expect(snap.error!.message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/thrown\?… failed: network error$/);
    await t.scan("/thrown");
    t.close();
  });

  it("program errors name module paths, never the entry's query", async () => {
    const t = await tab();
    const missing = await t.store.ensureProgram({ url: `${base}/app/main.ts?token=${SECRETS.program}` });
    expect(missing.error!.message).toBe("module './missing.ts' imported by /app/main.ts not found (HTTP 404 for /app/missing.ts)");
    const refused = await t.store.ensureProgram({ url: `${closedBase}/app/gone.ts?token=${SECRETS.program}` });
    expect(refused.error!.message).toBe("could not fetch module /app/gone.ts: network error (connection refused)");
    const broken = await t.store.ensureProgram({ url: `${base}/app/broken.tsx?token=${SECRETS.program}`, compile: true });
    expect(broken.error!.message).toMatch(/^cannot (parse module|compile) \/app\/broken\.tsx: syntax error at line 1, column \d+$/);
    await t.scan("/app/broken.tsx");
    t.close();
  });
});

describe("invariant 13: inputs fetch would refuse are refused up front, without repeating the secret", () => {
  it.each([
    [
      "userinfo in the URL",
      { url: `http://${SECRETS.user}:${SECRETS.password}@127.0.0.1:9/x` },
      /url "http:\/\/…@127\.0\.0\.1:9\/x" carries credentials/,
    ],
    [
      "a user name alone",
      { url: `http://${SECRETS.user}@127.0.0.1:9/x?token=${SECRETS.query}` },
      /url "http:\/\/…@127\.0\.0\.1:9\/x\?…" carries credentials/,
    ],
    [
      "a NUL byte in a header value",
      { url: "http://127.0.0.1:9/x", headers: { authorization: `Bearer ${SECRETS.header}\0` } },
      /header "authorization" holds a NUL byte at position 21/,
    ],
    [
      "a CR in a header value",
      { url: "http://127.0.0.1:9/x", headers: { "x-key": `${SECRETS.header}\r` } },
      /header "x-key" holds a CR byte/,
    ],
    [
      "an LF in a header value",
      { url: "http://127.0.0.1:9/x", headers: { "x-key": `a\n${SECRETS.header}` } },
      /header "x-key" holds a LF byte at position 1/,
    ],
    [
      "a character beyond Latin-1 in a header value",
      { url: "http://127.0.0.1:9/x", headers: { "x-key": `${SECRETS.header}→` } },
      /header "x-key" holds a character beyond U\+00FF/,
    ],
    [
      "an invalid header name",
      { url: "http://127.0.0.1:9/x", headers: { "bad name": SECRETS.header } },
      /header name "bad name" is not a valid HTTP token/,
    ],
    ["an unparsable URL with a query", { url: `not a url?token=${SECRETS.query}` }, /url "not a url\?…" is not a valid absolute URL/],
    [
      "a header value that is not a string",
      { url: "http://127.0.0.1:9/x", headers: { authorization: [`Bearer ${SECRETS.header}`] as unknown as string } },
      /header "authorization" must be a string, got an array/,
    ],
    [
      "headers given as pairs",
      { url: "http://127.0.0.1:9/x", headers: [["authorization", `Bearer ${SECRETS.header}`]] as unknown as Record<string, string> },
      /headers must be a plain object of strings, got an array/,
    ],
    [
      "a body that is not a string",
      { url: "http://127.0.0.1:9/x", method: "POST" as const, body: { password: SECRETS.password } as unknown as string },
      /unsupported body: an object; expected a string/,
    ],
  ])("%s", async (_what, req, message) => {
    const t = await tab();
    const before = Y.encodeStateAsUpdate(t.doc);
    const error = await t.store.ensure(req).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(SharedFetchInputError);
    expect(error!.message).toMatch(message);
    for (const secret of ALL) expect(error!.message).not.toContain(secret);
    expect(Y.encodeStateAsUpdate(t.doc)).toEqual(before); // nothing written
    t.close();
  });

  it("a program entry with credentials is refused the same way", async () => {
    const t = await tab();
    const error = await t.store
      .ensureProgram({ url: `http://${SECRETS.user}:${SECRETS.password}@127.0.0.1:9/app/main.ts` })
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(SharedFetchInputError);
    for (const secret of ALL) expect((error as Error).message).not.toContain(secret);
    t.close();
  });
});

describe("invariant 13: options refused for a missing doc or name quote neither the identity nor the peers' params", () => {
  it("createSharedFetchStore without a doc names the doc only", () => {
    const options = { identity: SECRETS.user, fetch: async () => new Response("{}") } as unknown as Parameters<
      typeof createSharedFetchStore
    >[0];
    expect(() => createSharedFetchStore(options)).toThrow(/needs \{ doc: Y\.Doc \}, got options whose doc is undefined/);
    expect(() => createSharedFetchStore(options)).toThrow(SharedFetchInputError);
    let message = "";
    try {
      createSharedFetchStore(options);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain(SECRETS.user);
  });

  it("connectBrowser without a name names the name only", () => {
    const options = { peers: { url: "ws://127.0.0.1:9", room: "r", params: { token: SECRETS.query } } } as unknown as Parameters<
      typeof connectBrowser
    >[0];
    let message = "";
    try {
      connectBrowser(options);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/connectBrowser needs \{ name: non-empty string \}, got name undefined/);
    expect(message).not.toContain(SECRETS.query);
  });
});
