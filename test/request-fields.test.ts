/**
 * A request is { url, method, headers, body, parse }. fetch's other options written into it
 * (`credentials: "include"`, `cache: "no-store"`, `signal`, `redirect`, `keepalive` …: what a
 * fetch or TanStack user writes by habit) were silently dropped: the request went out without
 * them (a cross-origin API answered 401 for want of its cookie, an aborted `signal` aborted
 * nothing) and two requests differing only there shared one key. Now they are refused up front,
 * as bad input (README "Error messages"), naming the field; nothing is sent or written.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient } from "@tanstack/react-query";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchInputError, sharedQueryOptions, type SharedRequest } from "../src/index.ts";

let server: Server;
let base = "";
let requests = 0;
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    seen.push(`${req.url} ${JSON.stringify(req.headers)}`);
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const store = (doc = new Y.Doc()) => createSharedFetchStore({ doc, locks: null, settleMs: 0 });

describe("fetch options in a request are refused, never dropped unsent", () => {
  it.each([
    ["credentials", "include"],
    ["cache", "no-store"],
    ["redirect", "manual"],
    ["keepalive", true],
    ["mode", "cors"],
    ["signal", AbortSignal.abort()],
  ])("%s: rejected at once naming the field; no request, nothing in the doc", async (name, value) => {
    const doc = new Y.Doc();
    const s = store(doc);
    const updates: Uint8Array[] = [];
    doc.on("update", (u: Uint8Array) => updates.push(u));
    const req = { url: `${base}/me`, [name]: value } as SharedRequest;
    const error = await s.ensure(req).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SharedFetchInputError);
    expect((error as Error).message).toBe(
      `shared-fetch: unknown request field ${JSON.stringify(name)}; expected url, method, headers, body, parse or callId`,
    );
    expect(() => s.keyOf(req)).toThrow(SharedFetchInputError);
    expect(updates).toEqual([]);
    expect(requests).toBe(0);
    s.destroy();
  });

  it("through sharedQueryOptions: the query's error, with the refusal as its cause; no request", async () => {
    const s = store();
    const client = new QueryClient();
    const options = sharedQueryOptions(s, { url: `${base}/me`, credentials: "include" } as SharedRequest);
    const error = await client.fetchQuery(options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain('unknown request field "credentials"');
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(SharedFetchInputError);
    expect(requests).toBe(0);
    client.clear();
    s.destroy();
  });

  it("a field left undefined (an optional option spread in) is no field: same key, sent", async () => {
    const s = store();
    const req = { url: `${base}/me`, credentials: undefined } as SharedRequest;
    const before = requests;
    expect(s.keyOf(req)).toBe(s.keyOf({ url: `${base}/me` }));
    expect(await s.ensure(req)).toMatchObject({ status: "success", data: {} });
    expect(requests - before).toBe(1);
    s.destroy();
  });
});

describe("callId: part of the key, never sent", () => {
  it("asks equal but for their callId are two keys and two requests; neither carries the callId", async () => {
    const s = store();
    const before = requests;
    const one = { url: `${base}/order`, callId: "call-one-7f3" };
    expect(s.keyOf(one)).not.toBe(s.keyOf({ url: `${base}/order` }));
    expect(s.keyOf(one)).not.toBe(s.keyOf({ ...one, callId: "call-two-7f3" }));
    await s.ensure(one);
    await s.ensure({ ...one, callId: "call-two-7f3" });
    expect(requests - before).toBe(2);
    expect(seen.slice(-2).join(" ")).not.toMatch(/call-(one|two)-7f3|callid/i);
    s.destroy();
  });

  it("a callId that is not a string is refused, naming the value and what was expected", () => {
    const s = store();
    expect(() => s.keyOf({ url: `${base}/order`, callId: 7 } as unknown as SharedRequest)).toThrow(
      new SharedFetchInputError("shared-fetch: callId must be a string, got 7"),
    );
    s.destroy();
  });
});
