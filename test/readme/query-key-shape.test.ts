/**
 * README, "Coming from TanStack Query": the key is readable and the same in every tab and device
 * for one identity and request — ["shared-fetch", method, origin + path, hash of identity and
 * inputs] with no query string, header value or body in it — or the queryKey you pass; and
 * `sharedQueryOptions(store, null)` / `sharedProgramOptions(store, null)` share ["shared-fetch", null].
 */
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedProgramOptions, sharedQueryKey, sharedQueryOptions } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";

const stores: { destroy(): void }[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.destroy()));
const make = (identity: string) => {
  const store = createSharedFetchStore({ doc: new Y.Doc(), fetch: new Host().fetch, locks: null, identity });
  stores.push(store);
  return store;
};

const SECRETS = ["token=s3cret", "Bearer t0ken", "b0dy-secret", "#frag"];
const req = {
  url: "https://api.example.com/items?token=s3cret#frag",
  method: "post",
  headers: { Authorization: "Bearer t0ken" },
  body: '{"q":"b0dy-secret"}',
};

describe("README, Coming from TanStack Query: the query key", () => {
  it("is [shared-fetch, METHOD, origin + path, hash]: no query string, header value or body", () => {
    const key = sharedQueryKey(make("u1"), req);
    expect(key.slice(0, 3)).toEqual(["shared-fetch", "POST", "https://api.example.com/items"]);
    expect(key).toHaveLength(4);
    expect(key[3]).toMatch(/^[0-9a-f]{16,}$/);
    for (const secret of SECRETS) expect(JSON.stringify(key)).not.toContain(secret);
  });

  it("is the same on another replica (its own doc) for one identity and request, and differs for another identity or input", () => {
    const a = make("u1");
    expect(sharedQueryKey(make("u1"), req)).toEqual(sharedQueryKey(a, req));
    expect(sharedQueryOptions(a, req).queryKey).toEqual(sharedQueryKey(a, req));
    expect(sharedQueryKey(make("u2"), req)[3]).not.toBe(sharedQueryKey(a, req)[3]);
    expect(sharedQueryKey(a, { ...req, body: '{"q":"other"}' })[3]).not.toBe(sharedQueryKey(a, req)[3]);
    expect(sharedQueryKey(a, { ...req, url: "https://api.example.com/items?token=other" })[3]).not.toBe(sharedQueryKey(a, req)[3]);
  });

  it("is the queryKey you pass, when you pass one", () => {
    expect(sharedQueryOptions(make("u1"), req, { queryKey: ["items", 1] }).queryKey).toEqual(["items", 1]);
  });

  it("sharedQueryOptions(store, null) and sharedProgramOptions(store, null) share one key, [shared-fetch, null]", () => {
    const store = make("u1");
    expect(sharedQueryOptions(store, null).queryKey).toEqual(["shared-fetch", null]);
    expect(sharedProgramOptions(store, null).queryKey).toEqual(["shared-fetch", null]);
  });
});
