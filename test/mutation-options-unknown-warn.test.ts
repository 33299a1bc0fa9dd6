/**
 * sharedMutationFn's options warn of a key they do not know, once per key, when the function is
 * made, naming the option meant, as every other entry point does. Before, `useMutation`'s own
 * options given there (`onSuccess`) or a typo (`retrys`) were told of only when the mutation ran, as
 * `store.refetch`'s, listing options a mutation has no use for (`signal`, `maxAgeMs`,
 * `skipInFlight`), and those were taken silently: a `maxAgeMs` made the POST a freshness demand.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { sharedMutationFn } from "../src/index.ts";
import { cluster, URL_A } from "./harness/replicas.ts";

let warn: MockInstance<typeof console.warn>;
const warnings = () => warn.mock.calls.map((args) => String(args[0]));
beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

const post = () => ({ url: URL_A, method: "POST" as const, body: "{}" });

describe("sharedMutationFn's options: an unknown key is warned of where the function is made, naming the option meant", () => {
  it("`retrys` names `retry`, `onSuccess` lists the known options; once each, before any call", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 201, body: { ok: true } });
    const options = { retrys: 2, onSuccess: () => {} } as never;
    const add = sharedMutationFn(c.stores[0]!, post, options);
    sharedMutationFn(c.stores[0]!, post, options);
    expect(warnings()).toEqual([
      "shared-fetch: sharedMutationFn ignores `retrys`; did you mean `retry`?",
      "shared-fetch: sharedMutationFn ignores `onSuccess`; known: retry, retryDelay, leaseMs",
    ]);
    expect(await add(undefined)).toEqual({ ok: true });
    // Nothing more when it runs: store.refetch is handed the known options only.
    expect(warnings()).toHaveLength(2);
  });

  it("a store option a mutation has no use for (`maxAgeMs`) is warned of and not taken: the call is still sent", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 201, body: { ok: true } });
    const add = sharedMutationFn(c.stores[0]!, post, { maxAgeMs: 60_000 } as never);
    await add(undefined);
    await add(undefined);
    expect(c.host.calls).toHaveLength(2);
    expect(warnings()).toEqual(["shared-fetch: sharedMutationFn ignores `maxAgeMs`; known: retry, retryDelay, leaseMs"]);
  });

  it("retry, retryDelay and leaseMs are no warning; options that are no object are refused naming them", () => {
    const store = cluster(1, { settleMs: 0 }).stores[0]!;
    sharedMutationFn(store, post, { retry: 1, retryDelay: 0, leaseMs: 4000 });
    sharedMutationFn(store, post, undefined);
    expect(warnings()).toEqual([]);
    expect(() => sharedMutationFn(store, post, 3 as never)).toThrow(
      "sharedMutationFn: the options must be an object { retry, retryDelay, leaseMs }, got 3",
    );
  });
});
