/**
 * Bad input gets a clear error (DESIGN.md): sharedQueryOptions, sharedProgramOptions,
 * sharedMutationFn and sharedQueryKey given something that is no store (one read before it was
 * made, arguments swapped) say so at the call. Before, sharedQueryOptions(undefined, url) became
 * a query error blaming the request ("… is not a request: Cannot read properties of undefined"),
 * and sharedMutationFn(undefined, …) failed only when the mutation ran.
 */
import { describe, expect, it } from "vitest";
import { sharedMutationFn, sharedProgramOptions, sharedQueryKey, sharedQueryOptions, type SharedFetchStore } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";

const URL = "https://api.example.test/items";
const notStores: [unknown, string][] = [
  [undefined, "undefined"],
  [null, "null"],
  [URL, JSON.stringify(URL)],
  [{}, "an object"],
];

describe("the options builders refuse what is no store, naming it", () => {
  for (const [value, shown] of notStores) {
    it(`given ${shown}`, () => {
      const store = value as SharedFetchStore;
      const named = (fn: string) =>
        new RegExp(`^${fn}: the first argument must be a shared-fetch store .*got ${shown.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
      expect(() => sharedQueryOptions(store, URL)).toThrow(named("sharedQueryOptions"));
      expect(() => sharedProgramOptions(store, `${URL}/main.js`)).toThrow(named("sharedProgramOptions"));
      expect(() => sharedMutationFn(store, () => ({ url: URL, method: "POST" }))).toThrow(named("sharedMutationFn"));
      expect(() => sharedQueryKey(store, URL)).toThrow(named("sharedQueryKey"));
    });
  }

  it("a store (or any object with the store's ensure) is taken as before", () => {
    const store = cluster(1).stores[0]!;
    expect(sharedQueryOptions(store, URL).queryKey[0]).toBe("shared-fetch");
    expect(sharedQueryKey(store, URL)).toEqual(sharedQueryOptions(store, URL).queryKey);
    expect(typeof sharedMutationFn(store, () => URL)).toBe("function");
  });
});

describe("sharedMutationFn refuses a request that is no function, at the call", () => {
  it('a URL or a request object given as it is (as the retry example in the README once read) is named, not run as "request is not a function" at mutate', () => {
    const store = cluster(1).stores[0]!;
    const given: [unknown, string][] = [
      [URL, JSON.stringify(URL)],
      [{ url: URL, method: "POST" }, "an object"],
      [undefined, "undefined"],
    ];
    for (const [request, shown] of given)
      expect(() => sharedMutationFn(store, request as never)).toThrow(
        new TypeError(`sharedMutationFn: the second argument must be a function (variables) => request, got ${shown}`),
      );
  });
});
