/**
 * Invariant 9, a key re-checks by itself when a foreign claim goes stale: the engine's verdict
 * names the deadline, and KeyStates arms a timer for it. A deadline that passed between the verdict
 * and the arming (a millisecond ticked in between; under load, a busy loop) was dropped: nothing
 * woke the key again, and with a crashed claimant silent for good, no takeover ever came (which
 * can explain a Storybook "crashed tab" run that waited 30 s for one under CI load). Fake timers.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { openDocRecords } from "../src/core/doc-records.ts";
import { KeyStates } from "../src/core/key-states.ts";

afterEach(() => void vi.useRealTimers());

function states() {
  const refreshed: string[] = [];
  const keys = new KeyStates({ refresh: (st) => refreshed.push(st.key), beforeFlush: () => {} });
  const { results } = openDocRecords(new Y.Doc(), () => null);
  return { keys, refreshed, st: keys.get("k", "fetch", results) };
}

describe("KeyStates.recheckAt", () => {
  it("a deadline already passed wakes the key at once, not never", async () => {
    vi.useFakeTimers();
    const { keys, refreshed, st } = states();
    keys.recheckAt(st, Date.now() - 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(refreshed).toEqual(["k"]);
  });

  it("a deadline ahead wakes the key then, once; Infinity arms nothing", async () => {
    vi.useFakeTimers();
    const { keys, refreshed, st } = states();
    keys.recheckAt(st, Date.now() + 500);
    await vi.advanceTimersByTimeAsync(499);
    expect(refreshed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(refreshed).toEqual(["k"]);
    keys.recheckAt(st, Infinity);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refreshed).toEqual(["k"]);
  });
});
