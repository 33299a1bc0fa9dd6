import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

describe("request keys: a URL's fragment is never sent, so it never splits a key", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("one request for URL, URL#a and URL#b (fetch drops the fragment; programs already ignore it)", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    expect(a!.keyOf(`${URL_A}#a`)).toBe(a!.keyOf(URL_A));
    expect(a!.keyOf({ url: `${URL_A}?q=1#b` })).toBe(a!.keyOf(`${URL_A}?q=1`));
    const waits = [URL_A, `${URL_A}#a`, `${URL_A}#b`].map((url) => a!.ensure({ url }));
    await tick(50);
    expect(c.host.calls).toHaveLength(1);
    c.host.calls[0]!.respond(200, { n: 1 });
    for (const snap of await Promise.all(waits)) expect(snap).toEqual({ status: "success", data: { n: 1 } });
    expect(a!.snapshot({ url: `${URL_A}#c` })).toEqual({ status: "success", data: { n: 1 } });
  });
});
