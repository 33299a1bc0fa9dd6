import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

describe("request keys: header values as fetch sends them", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("leading and trailing spaces or tabs of a header value, which fetch strips, make no key of their own", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const req = (value: string) => ({ url: URL_A, headers: { Accept: value } });
    expect(a!.keyOf(req(" application/json\t"))).toBe(a!.keyOf(req("application/json")));
    expect(a!.keyOf(req("application/ json"))).not.toBe(a!.keyOf(req("application/json")));
    const waits = [req("application/json"), req("  application/json  ")].map((r) => a!.ensure(r));
    await tick(50);
    expect(c.host.calls).toHaveLength(1);
    expect(c.host.calls[0]!.headers.accept).toBe("application/json");
    c.host.calls[0]!.respond(200, { n: 1 });
    for (const snap of await Promise.all(waits)) expect(snap).toEqual({ status: "success", data: { n: 1 } });
  });
});
