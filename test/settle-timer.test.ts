import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_SETTLE_EXTENSION_MS, SETTLE_LAG_MS, startSettleTimer } from "../src/core/settle-timer.ts";

/** A busy event loop, simulated: the clock jumps forward inside a task, as a long task makes it. */
const block = (ms: number) => vi.setSystemTime(Date.now() + ms);

describe("invariant 8: the settle window counts time in which a rival's claim could have been heard", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("a timer that fires on time ends the window", () => {
    const done = vi.fn();
    startSettleTimer(100, done);
    vi.advanceTimersByTime(99);
    expect(done).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(done).toHaveBeenCalledOnce();
  });

  it("a late timer waits behind the updates queued meanwhile, then ends the window", () => {
    const order: string[] = [];
    startSettleTimer(100, () => order.push("settled"));
    // A long task runs past the window; an update (a rival's claim) is queued behind it.
    setTimeout(() => {
      block(500);
      setTimeout(() => order.push("rival claim applied"), 0);
    }, 10);
    vi.advanceTimersByTime(2_000);
    expect(order).toEqual(["rival claim applied", "settled"]);
  });

  it("keeps checking while every check is late, and is bounded", () => {
    const done = vi.fn();
    startSettleTimer(100, done);
    // Every task takes longer than the lag tolerance: the loop never catches up.
    const busy = () => {
      block(SETTLE_LAG_MS + 5);
      setTimeout(busy, 0);
    };
    setTimeout(busy, 50);
    vi.advanceTimersByTime(200);
    expect(done).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_SETTLE_EXTENSION_MS * 2);
    expect(done).toHaveBeenCalledOnce();
  });

  it("a hidden page's throttled timers are late by policy: no extension", () => {
    vi.stubGlobal("document", { visibilityState: "hidden" });
    const done = vi.fn();
    startSettleTimer(100, done);
    setTimeout(() => block(900), 10);
    vi.advanceTimersByTime(100);
    expect(done).toHaveBeenCalledOnce();
  });

  it("cancel stops a pending check", () => {
    const done = vi.fn();
    const timer = startSettleTimer(100, done);
    setTimeout(() => block(500), 10);
    vi.advanceTimersByTime(100);
    timer.cancel();
    vi.advanceTimersByTime(1_000);
    expect(done).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });
});
