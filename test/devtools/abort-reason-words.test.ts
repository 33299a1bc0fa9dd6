import { describe, expect, it } from "vitest";
import { describeEntry, type TimelineEntry } from "../../devtools/index.ts";

/**
 * A release after the store's own abort says why in plain words: "hidden" and "destroyed" are the
 * store's event codes, not sentences (a scenario's reload reads "its page was left or frozen").
 * "hidden" is pagehide or freeze: "its page was hidden" read as a tab switched away from, which
 * keeps its requests (visibilitychange; the README says so).
 */
describe("released after an abort: the reason in words", () => {
  const released = (aborted: string): TimelineEntry => ({
    seq: 1,
    at: 0,
    key: "k",
    label: "GET /api/report",
    type: "released",
    replicaId: "a",
    rev: 1,
    aborted,
  });
  const names = () => "A";
  it.each([
    ["no-waiters", "nobody waits on it"],
    ["hidden", "its page was left or frozen"],
    ["destroyed", "its store was closed"],
    ["superseded", "superseded"],
  ])("%s reads as %s", (code, words) => {
    expect(describeEntry(released(code), names)).toBe(`A released GET /api/report (rev 1) with nothing recorded: aborted, ${words}`);
  });
});
