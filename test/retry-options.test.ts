/**
 * `store.ensure(req, { retry, retryDelay })` takes what a TanStack Query user types — `retry: 2`,
 * `true`, `false`, `(failureCount, error) => boolean`, `retryDelay: ms | (failureCount, error) =>
 * ms` — as well as a RetryPolicy, and runs it inside the claim, in a tab's own replica and through
 * a SharedWorker alike. A value of any other shape is bad input (DESIGN.md: ensure "rejects … at
 * once on bad input … a clear message, nothing written"), never a fetch whose retries are dropped.
 */
import { describe, expect, it } from "vitest";
import { Host } from "../sim/host.ts";
import type { OutcomeError } from "../src/core/fetcher.ts";
import { pausingWhileOffline, resolveRetry, type RetryPolicy } from "../src/core/retry.ts";
import { SharedFetchInputError, type EnsureOptions, type SharedFetchStore } from "../src/index.ts";
import { cluster } from "./harness/replicas.ts";
import { browser } from "./worker/browser-sim.ts";

const API = "http://127.0.0.1:9/api/flaky";

/** Answers each call in turn with the next status (200: success). */
function answering(host: Host, statuses: number[]): void {
  host.auto = (call) => {
    const status = statuses[call.n - 1] ?? 200;
    return { status, body: status === 200 ? { ok: call.n } : { failed: call.n } };
  };
}

/** A store of each replica kind on a fresh host: a tab's own replica, and a tab of a SharedWorker. */
const kinds: [string, (host: Host) => SharedFetchStore][] = [
  [
    "own replica",
    (host) => {
      const c = cluster(0);
      return c.join({ fetch: host.fetch, settleMs: 0 });
    },
  ],
  ["SharedWorker tab", (host) => browser(host).tab()],
];

for (const [kind, make] of kinds) {
  describe(`TanStack's retry / retryDelay at the store (${kind})`, () => {
    it("retry: 2, retryDelay: 0 → three attempts in one claim, the last one's result recorded", async () => {
      const host = new Host();
      answering(host, [500, 503]);
      const store = make(host);
      await expect(store.ensure({ url: API }, { retry: 2, retryDelay: 0 })).resolves.toMatchObject({ status: "success", data: { ok: 3 } });
      expect(host.calls).toHaveLength(3);
    });

    it("a retry function gets TanStack's counts and the error; a retryDelay function its delay; false retries nothing", async () => {
      const host = new Host();
      answering(host, [503, 503, 500]);
      const store = make(host);
      const seen: [number, number | undefined][] = [];
      const delays: number[] = [];
      const opts: EnsureOptions = {
        retry: (count: number, error: OutcomeError) => (seen.push([count, error.status]), error.status === 503),
        retryDelay: (count: number) => (delays.push(count), 0),
      };
      await expect(store.ensure({ url: API }, opts)).resolves.toMatchObject({ status: "error", error: { status: 500 } });
      expect(seen).toEqual([
        [0, 503],
        [1, 503],
        [2, 500],
      ]);
      // Asked first on every failure, the last one too, as TanStack's retryer asks it.
      expect(delays).toEqual([0, 1, 2]);
      host.auto = () => ({ status: 502, body: "bad gateway" });
      await expect(store.refetch({ url: API }, { retry: false })).resolves.toMatchObject({ status: "error", error: { status: 502 } });
      expect(host.calls).toHaveLength(4);
    });

    it("an abort does not wait for a policy's late answer (a tab waiting to be online): the claim ends at once, invariant 11", async () => {
      const host = new Host();
      answering(host, [503]);
      const store = make(host);
      const never = new Promise<number>(() => {});
      const controller = new AbortController();
      const asked = new Promise<void>((resolve) => {
        const policy: RetryPolicy = { retry: () => true, delayMs: () => (resolve(), never) };
        void store.ensure({ url: API }, { retry: policy, signal: controller.signal }).catch((e: unknown) => ((aborted = e), undefined));
      });
      let aborted: unknown;
      await asked;
      controller.abort();
      await expect.poll(() => (aborted as Error | undefined)?.name).toBe("AbortError");
      await expect.poll(() => store.snapshot({ url: API }).claim).toBeUndefined();
      expect(host.calls).toHaveLength(1);
      // The key is free for the next ask at once.
      await expect(store.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { ok: 2 } });
    });

    it("a retry of another shape is refused at once, naming the value and what was expected; nothing is fetched", async () => {
      const host = new Host();
      const store = make(host);
      const refused = (opts: unknown, message: RegExp) =>
        expect(store.ensure({ url: API }, opts as EnsureOptions)).rejects.toSatisfy(
          (e) => e instanceof SharedFetchInputError && message.test(e.message),
        );
      await refused({ retry: "3" }, /retry must be true\/false, a number of retries \(>= 0\), a function .* or a RetryPolicy .*got "3"/);
      await refused({ retry: -1 }, /retry must be .*got -1/);
      await refused({ retry: Number.NaN }, /retry must be .*got NaN/);
      await refused({ retry: { retry: 2 } }, /retry must be .*got \{"retry":2\}/);
      await refused({ retry: 2, retryDelay: "fast" }, /retryDelay must be a number of milliseconds .*got "fast"/);
      await refused({ retry: 2, retryDelay: -10 }, /retryDelay must be .*got -10/);
      await refused({ retryDelay: 100 }, /retryDelay 100 was given without retry/);
      const policy: RetryPolicy = { retry: () => false, delayMs: () => 0 };
      await refused({ retry: policy, retryDelay: 5 }, /retryDelay 5 was given with a RetryPolicy/);
      await refused({ retry: { ...policy, data: { retry: "2" } } }, /a RetryPolicy's data must be .*got \{"retry":"2"\}/);
      await expect(store.refetch({ url: API }, { retry: "x" } as unknown as EnsureOptions)).rejects.toBeInstanceOf(SharedFetchInputError);
      expect(host.calls).toHaveLength(0);
    });
  });
}

describe("resolveRetry: TanStack's values as a policy that crosses a port as data where it is data", () => {
  it("counts and booleans are data (Infinity as `true`); the delay defaults to TanStack's exponential one; a RetryPolicy is kept as is", () => {
    expect(resolveRetry(2, undefined)?.data).toEqual({ retry: 2, delayMs: "exponential" });
    expect(resolveRetry(true, 250)?.data).toEqual({ retry: true, delayMs: 250 });
    expect(resolveRetry(Infinity, 0)?.data).toEqual({ retry: true, delayMs: 0 });
    expect(
      resolveRetry(
        () => true,
        () => 1,
      )?.data,
    ).toEqual({});
    expect(resolveRetry(undefined, undefined)).toBeUndefined();
    const policy: RetryPolicy = { retry: () => true, delayMs: () => 0, data: { retry: 1 } };
    expect(resolveRetry(policy, undefined)).toBe(policy);
    const one = resolveRetry(1, undefined)!;
    const error = { message: "HTTP 503", status: 503 };
    // The delay is asked with the verdict (TanStack's retryer asks both on every failure), read after it.
    expect([one.retry(0, error), one.delayMs(0, error), one.retry(3, error), one.delayMs(3, error)]).toEqual([true, 1000, false, 8000]);
  });
});

describe("a retry waiting for the connection, then aborted (invariant 11)", () => {
  it("lets go of the online listener and shows the pause over at once, not when the browser is back online", async () => {
    const host = new Host();
    answering(host, [503]);
    const store = cluster(0).join({ fetch: host.fetch, settleMs: 0 });
    const listeners = new Set<(online: boolean) => void>();
    const pauses: boolean[] = [];
    const policy = pausingWhileOffline(
      resolveRetry(3, 0)!,
      { isOnline: () => false, subscribe: (l) => (listeners.add(l), () => listeners.delete(l)) },
      (on) => pauses.push(on),
    );
    const controller = new AbortController();
    const ended = store.ensure({ url: API }, { retry: policy, signal: controller.signal }).catch((e: unknown) => e);
    await expect.poll(() => pauses).toEqual([true]);
    expect(listeners.size).toBe(1);
    controller.abort();
    expect(await ended).toMatchObject({ name: "AbortError" });
    await expect.poll(() => pauses).toEqual([true, false]);
    expect(listeners.size).toBe(0);
    expect(store.snapshot({ url: API }).claim).toBeUndefined();
    expect(host.calls).toHaveLength(1);
  });
});
