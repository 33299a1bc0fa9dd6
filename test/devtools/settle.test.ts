/**
 * Issue "time to data": the panel says how long a claim waits before its request leaves and which
 * rule of the settle window applied (SettleWhy), the same words in the event log and the Replicas tab.
 */
import { describe, expect, it } from "vitest";
import { describeEvent, describeSettle } from "../../devtools/format.ts";

describe("describeSettle", () => {
  it("names the window and its reason; a sized window gone to 0 behind a fence says the server's order decides", () => {
    expect(describeSettle(0, "tab-locks")).toBe("no window: the key's Web Lock decides between this browser's tabs");
    expect(describeSettle(52.4, "measured-trip", 2.2)).toBe("window 52 ms: sized from measured round trips (2 ms)");
    expect(describeSettle(50, "initial-sync", 3)).toBe("window 50 ms: sized from the initial sync (3 ms)");
    expect(describeSettle(100, "default")).toBe("window 100 ms: the default, no round trip measured yet");
    expect(describeSettle(0, "alone")).toBe("no window: no replica of another browser present");
    expect(describeSettle(0, "disconnected")).toBe("no window: disconnected from every sync server");
    expect(describeSettle(0, "measured-trip", 2)).toBe("no window left: in sync for longer than it, the sync server's order decides");
  });

  it("each claimed event in the log carries its window", () => {
    const claimed = { type: "claimed", kind: "fetch", key: "k", label: "GET /a", rev: 3, settleMs: 0, settleWhy: "nothing-syncs" } as const;
    expect(describeEvent(claimed)).toBe("GET /a rev 3 · no window: nothing syncs this doc");
    expect(describeEvent({ ...claimed, takeoverOf: "replica-1", settleMs: 250, settleWhy: "settle-ms" })).toBe(
      "GET /a rev 3 (took over from replica-1) · window 250 ms: the settleMs option",
    );
  });
});
