import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { httpStatus } from "../src/core/causes.ts";

describe("error messages name every RFC 9110 status by its standard reason phrase", () => {
  it("a 304 to a conditional request (If-None-Match) is recorded as 'HTTP 304 Not Modified', not a bare number", async () => {
    const fetch: typeof globalThis.fetch = () => Promise.resolve(new Response(null, { status: 304 }));
    const store = createSharedFetchStore({ doc: new Y.Doc(), fetch, locks: null, settleMs: 0 });
    const url = "https://api.example.test/items";
    await expect(store.ensure({ url, headers: { "If-None-Match": '"v1"' } })).resolves.toEqual({
      status: "error",
      error: { message: `HTTP 304 Not Modified from GET ${url}`, status: 304 },
    });
    store.destroy();
  });

  it("every status code RFC 9110 registers has its phrase", () => {
    const rfc9110 = [
      200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411,
      412, 413, 414, 415, 416, 417, 421, 422, 426, 500, 501, 502, 503, 504, 505,
    ];
    expect(rfc9110.filter((status) => httpStatus(status) === `HTTP ${status}`)).toEqual([]);
  });
});
