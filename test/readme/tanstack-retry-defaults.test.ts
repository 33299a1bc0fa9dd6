// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query", "Retries run inside the claim": with no `retry` or
 * `retryDelay` anywhere (yours, the key's or the client's defaults), a query in a browser retries
 * as TanStack's defaults say — 3 retries, `min(1000·2^n, 30 000)` ms apart — in the claimant, while
 * another replica stays pending until the error of the last attempt. (On a server TanStack's
 * default is no retry, and so it is here: test/readme/tanstack-claims.test.ts; jsdom gives this
 * file a window.)
 */
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedQueryOptions } from "../../src/index.ts";
import { cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => vi.useRealTimers());

describe("README, Coming from TanStack Query: TanStack's default retry, run in the claim", () => {
  it("invariant 8: 1 + 3 attempts at 0, 1 s, 3 s and 7 s; the other replica shows pending until the one error", async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 503, body: "down" });
    const start = Date.now();
    const observer = new QueryObserver(new QueryClient(), sharedQueryOptions(a!, URL_A));
    const off = observer.subscribe(() => {});
    const sentAt: number[] = [];
    const seen = () => c.host.calls.slice(sentAt.length).forEach(() => sentAt.push(Date.now() - start));
    for (let ms = 0; ms < 20_000; ms += 50) {
      await tick(50);
      seen();
      if (sentAt.length < 4) expect(b!.snapshot({ url: URL_A }).status).toBe("pending");
    }
    // Each attempt is sent on the 50 ms tick its delay ends in.
    expect(sentAt.map((ms) => Math.floor(ms / 1000))).toEqual([0, 1, 3, 7]);
    expect(observer.getCurrentResult().status).toBe("error");
    expect(b!.snapshot({ url: URL_A })).toMatchObject({ status: "error", error: { status: 503 } });
    off();
  });
});
