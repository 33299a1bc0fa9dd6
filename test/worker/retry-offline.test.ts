// @vitest-environment jsdom
/**
 * A SharedWorker replica runs a tab's TanStack retries itself (invariant 8: one sequence of
 * attempts in the claim). With networkMode "online" (TanStack's default) a retry waits while the
 * runtime is offline, as TanStack's retryer pauses: the flag crosses the port as data, and the
 * worker waits on its own navigator, so an offline browser's failures do not use up the retries.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { pausingWhileOffline, tanstackRetry } from "../../src/core/retry.ts";
import { isWireRetry, retryFromWire, retryToWire } from "../../src/worker/retry-wire.ts";

const error = { message: "Failed to fetch" };

function setOnline(online: boolean): void {
  Object.defineProperty(window.navigator, "onLine", { configurable: true, get: () => online });
  window.dispatchEvent(new Event(online ? "online" : "offline"));
}

afterEach(() => {
  setOnline(true);
  vi.useRealTimers();
});

describe("retries wait while offline, in a SharedWorker replica too", () => {
  it("the tab's policy crosses the port as data with pauseOffline; the worker's delay waits for its navigator's online event", async () => {
    vi.useFakeTimers();
    const online = { now: true, listeners: new Set<(online: boolean) => void>() };
    const tabPolicy = pausingWhileOffline(
      tanstackRetry(3, 100, (e) => e),
      { isOnline: () => online.now, subscribe: (l) => (online.listeners.add(l), () => online.listeners.delete(l)) },
    );
    const wire = retryToWire(tabPolicy);
    expect(wire).toEqual({ retry: 3, delayMs: 100, pauseOffline: true });
    expect(isWireRetry(wire)).toBe(true);
    const asked = vi.fn();
    const worker = retryFromWire(wire, async () => (asked(), undefined))!;
    setOnline(false);
    let delay: number | undefined;
    void Promise.resolve(worker.delayMs(0, error)).then((ms) => (delay = ms));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(delay).toBeUndefined(); // still offline: no retry yet, and no error recorded
    setOnline(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(delay).toBe(0); // the 100 ms passed while offline: the retry runs at once
    expect(asked).not.toHaveBeenCalled(); // data: the worker never asked the tab
  });

  it("online, the delay is the policy's own; without the flag (networkMode 'always') nothing waits", async () => {
    const worker = retryFromWire({ retry: 2, delayMs: 40, pauseOffline: true }, async () => undefined)!;
    expect(await worker.delayMs(0, error)).toBe(40);
    setOnline(false);
    const always = retryFromWire({ retry: 2, delayMs: 40 }, async () => undefined)!;
    expect(await always.delayMs(0, error)).toBe(40);
    expect(isWireRetry({ retry: 2, delayMs: 40, pauseOffline: "yes" })).toBe(false);
  });
});
