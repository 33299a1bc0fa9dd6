import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fetchKey, programKey } from "../src/core/key.ts";
import { normalizeRequest } from "../src/core/request.ts";

const key = (req: Parameters<typeof normalizeRequest>[0], identity = "anonymous") => fetchKey(identity, normalizeRequest(req));

describe("request keys (SHA-256 over a canonical, type-aware serialisation)", () => {
  it("same inputs and identity give the same key; header name case and order do not matter", () => {
    const a = key({ url: "https://h.test/x", headers: { Accept: "application/json", "X-A": "1" } });
    const b = key({ url: "https://h.test/x", method: "get", headers: { "x-a": "1", accept: "application/json" } });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it("every input is part of the key: identity, url, method, header values, body, parse mode", () => {
    const base = { url: "https://h.test/x", method: "POST", headers: { a: "1" }, body: "b", parse: "json" as const };
    const keys = new Set([
      key(base),
      key(base, "alice"),
      key({ ...base, url: "https://h.test/y" }),
      key({ ...base, method: "PUT" }),
      key({ ...base, headers: { a: "2" } }),
      key({ ...base, body: "c" }),
      key({ ...base, body: "" }),
      key({ ...base, body: undefined }),
      key({ ...base, parse: "text" }),
    ]);
    expect(keys.size).toBe(9);
  });

  it("fields cannot bleed into each other (a separator inside a value shifts nothing)", () => {
    expect(key({ url: "https://h.test/x", method: "POST", headers: { a: "1;b1:2" } })).not.toBe(
      key({ url: "https://h.test/x", method: "POST", headers: { a: "1", b: "2" } }),
    );
    expect(key({ url: "https://h.test/x", method: "POST", body: "p4:json;" })).not.toBe(
      key({ url: "https://h.test/x", method: "POST", body: "" }),
    );
  });

  it("property: two requests share a key exactly when their normalised inputs are equal", () => {
    const text = fc.string({ maxLength: 6, unit: fc.constantFrom("a", ";", ":", "1", "-", "é") });
    const request = fc.record({
      url: fc.constantFrom("https://h.test/a", "https://h.test/a?x=1", "https://h.test/b"),
      method: fc.constantFrom("POST", "PUT"),
      headers: fc.dictionary(fc.constantFrom("a", "b", "A"), text, { maxKeys: 2 }),
      body: fc.option(text, { nil: undefined }),
      parse: fc.constantFrom("json" as const, "text" as const),
    });
    fc.assert(
      fc.property(request, request, (r1, r2) => {
        let n1, n2;
        try {
          n1 = normalizeRequest(r1);
          n2 = normalizeRequest(r2);
        } catch {
          return; // duplicate header names: rejected, never keyed
        }
        const same = JSON.stringify([n1, Object.entries(n1.headers).sort()]) === JSON.stringify([n2, Object.entries(n2.headers).sort()]);
        expect(fetchKey("i", n1) === fetchKey("i", n2)).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });

  it("program keys differ from fetch keys of the same URL and by compile flag", () => {
    const url = "https://h.test/main.ts";
    expect(new Set([programKey("i", url, false), programKey("i", url, true), key({ url }, "i")]).size).toBe(3);
  });

  it("bad headers are rejected with the name of the bad value", () => {
    expect(() => normalizeRequest({ url: "https://h.test", headers: { a: 1 as unknown as string } })).toThrow(
      /header "a" must be a string, got a number/,
    );
    expect(() => normalizeRequest({ url: "https://h.test", headers: { "bad name": "x" } })).toThrow(/"bad name" is not a valid HTTP token/);
    expect(() => normalizeRequest({ url: "https://h.test", headers: { A: "1", a: "2" } })).toThrow(/given twice/);
    expect(() => normalizeRequest({ url: "https://h.test", parse: "xml" as "json" })).toThrow(/parse must be "json" or "text", got "xml"/);
    expect(() => normalizeRequest(42)).toThrow(/request must be a URL string or \{ url, \.\.\. \}, got 42/);
  });
});
