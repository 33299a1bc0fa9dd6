/**
 * Retries in SharedWorker mode (TanStack-style `retry` / `retryDelay`, run inside the claim):
 * policies that are data cross the port and run in the worker; a policy that is a function stays
 * in the tab that asked, and the worker asks it for a verdict after each failure — no answer
 * (the tab left, or RETRY_ASK_MS passed) means no retry. Real ports, docs and stores; FakeLocks.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import type { OutcomeError } from "../../src/core/fetcher.ts";
import type { RetryPolicy } from "../../src/core/retry.ts";
import { RetryAsks } from "../../src/worker/retry-asks.ts";
import { RETRY_ASK_MS } from "../../src/worker/retry-wire.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/flaky";
afterEach(() => void vi.useRealTimers());

/** Answers each call in turn with the next status (200: success). */
function answering(host: Host, statuses: number[]): void {
  host.auto = (call) => {
    const status = statuses[call.n - 1] ?? 200;
    return { status, body: status === 200 ? { ok: call.n } : { failed: call.n } };
  };
}

describe("retries in worker mode", () => {
  it("a data policy (retry: 2, retryDelay: 0) runs in the worker: 3 attempts at the host, the tab's functions never called", async () => {
    const host = new Host();
    answering(host, [500, 503]);
    const b = browser(host);
    const t = b.tab();
    const calls = { retry: 0, delay: 0 };
    const retry: RetryPolicy = {
      retry: (count) => (calls.retry++, count < 2),
      delayMs: () => (calls.delay++, 0),
      data: { retry: 2, delayMs: 0 },
    };
    await expect(t.ensure({ url: API }, { retry })).resolves.toMatchObject({ status: "success", data: { ok: 3 } });
    expect(host.calls).toHaveLength(3);
    expect(calls).toEqual({ retry: 0, delay: 0 });
  });

  it("a data policy that gives up records the last error once (retry: 1 → 2 attempts)", async () => {
    const host = new Host();
    answering(host, [500, 502, 200]);
    const b = browser(host);
    const t = b.tab();
    const retry: RetryPolicy = { retry: (c) => c < 1, delayMs: () => 0, data: { retry: 1, delayMs: 0 } };
    await expect(t.ensure({ url: API }, { retry })).resolves.toMatchObject({ status: "error", error: { status: 502 } });
    expect(host.calls).toHaveLength(2);
  });

  it("a function policy is asked in the tab that asked, with TanStack's counts and the error; its verdict and delay are kept", async () => {
    const host = new Host();
    answering(host, [503, 500]);
    const b = browser(host);
    const t = b.tab();
    const seen: [number, OutcomeError][] = [];
    const retry: RetryPolicy = {
      retry: (count, error) => (seen.push([count, error]), error.status === 503),
      delayMs: async () => 1,
    };
    // 503 → retried (the function said so); 500 → not retried: the error is recorded.
    await expect(t.ensure({ url: API }, { retry })).resolves.toMatchObject({ status: "error", error: { status: 500 } });
    expect(host.calls).toHaveLength(2);
    expect(seen.map(([count, error]) => [count, error.status])).toEqual([
      [0, 503],
      [1, 500],
    ]);
  });

  it("no answer → no retry: the tab whose function policy it is crashes while the worker waits for its verdict", async () => {
    const host = new Host();
    answering(host, [500]);
    const b = browser(host);
    const [asker, other] = [b.tab(), b.tab()];
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    // A verdict that never comes (the page froze, then crashed).
    const retry: RetryPolicy = { retry: () => (asked(), new Promise<boolean>(() => {})), delayMs: () => 0 };
    void asker.ensure({ url: API }, { retry }).catch(() => {});
    await wasAsked;
    // The other tab joins while the claim stands (the worker waits for the verdict), then the asker dies.
    const joined = other.ensure({ url: API });
    const key = other.keyOf({ url: API });
    await until(
      () =>
        b
          .workerStore()
          .inspect()
          .keys.find((k) => k.key === key)?.local?.waiters === 2,
    );
    b.locks.crash(asker.tag);
    await expect(joined).resolves.toMatchObject({ status: "error", error: { status: 500 } });
    expect(host.calls).toHaveLength(1);
  });

  it(`a question nobody answers within RETRY_ASK_MS (${RETRY_ASK_MS} ms) is answered "no" (fake timers)`, async () => {
    vi.useFakeTimers();
    const posted: unknown[] = [];
    const asks = new RetryAsks((m) => posted.push(m) > 0);
    const answer = asks.ask(7, 0, { message: "HTTP 500", status: 500 });
    expect(posted).toEqual([{ t: "retry?", id: 1, waiter: 7, failureCount: 0, error: { message: "HTTP 500", status: 500 } }]);
    vi.advanceTimersByTime(RETRY_ASK_MS - 1);
    let settled = false;
    void answer.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    vi.advanceTimersByTime(1);
    await expect(answer).resolves.toBeUndefined();
    // A late answer changes nothing.
    asks.answer({ t: "retry", id: 1, retry: true, delayMs: 0 });
  });
});
