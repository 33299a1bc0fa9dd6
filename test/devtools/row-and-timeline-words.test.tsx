// @vitest-environment jsdom
/**
 * What a reader sees at a glance in the Keys tab and the Timeline: the count under the filters is
 * "1 key", not "1 keys"; a foreign claim's age and silence are two figures, not one run-on phrase
 * ("claimed 0.8 s ago silent 271 ms"); an error entry names its HTTP status once, not twice
 * ("(rev 1, HTTP 429): HTTP 429 Too Many Requests", the store's messages naming their status).
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { describeEntry, type TimelineEntry } from "../../devtools/index.ts";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

function storeWithPeerClaims(count: number) {
  const doc = new Y.Doc();
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    for (let i = 0; i < count; i++) {
      const claim = { replicaId: "peer", nonce: `n${i}`, rev: 1, leaseMs: 60_000, at: 1, label: `GET https://x.test/${i}` };
      lane.push([{ t: TABLES.claims, k: String(i).padStart(64, "0"), v: claim, s: 1 }]);
    }
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  return createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
}

describe("Keys tab: the words of a row and of the list's count", () => {
  it("one key reads '1 key', two read '2 keys'; which rows are shown only when not all are ('rows 1–1 rendered' told nothing)", async () => {
    // jsdom has no layout: a 480 px viewport of 40 px rows, 12 in view and 6 more rendered below.
    for (const [count, words] of [
      [1, "1 key"],
      [2, "2 keys"],
      [100, "100 keys · showing 1–18"],
    ] as const) {
      const store = storeWithPeerClaims(count);
      render(<SharedFetchDevtoolsPanel store={store} />);
      await act(async () => vi.advanceTimersByTimeAsync(10));
      expect(screen.getByTestId("shown").textContent).toBe(words);
      cleanup();
      store.destroy();
    }
  });

  it("a foreign claim's age and silence are set apart, both in seconds: 'claimed ≥2.0 s ago · silent 2.0 s'", async () => {
    const store = storeWithPeerClaims(1);
    render(<SharedFetchDevtoolsPanel store={store} />);
    await act(async () => vi.advanceTimersByTimeAsync(2_000));
    expect(screen.getByTestId("claim-state").textContent).toContain("claimed ≥2.0 s ago · silent 2.0 s");
    store.destroy();
  });
});

describe("Timeline: an error entry names its HTTP status once", () => {
  const error = (message: string, status?: number): TimelineEntry => ({
    seq: 1,
    at: 0,
    key: "k",
    label: "GET /api/report",
    type: "error",
    by: "b",
    rev: 1,
    message,
    status,
  });
  const names = () => "B";

  it("a store's message, which names the status: said once", () => {
    const text = describeEntry(error("HTTP 429 Too Many Requests from GET /api/report", 429), names);
    expect(text).toBe("B recorded an error for GET /api/report (rev 1): HTTP 429 Too Many Requests from GET /api/report");
  });

  it("a peer's message that does not name it: the status is still given", () => {
    expect(describeEntry(error("rate limited", 429), names)).toBe(
      "B recorded an error for GET /api/report (rev 1, HTTP 429): rate limited",
    );
  });

  it("a message that names the status only past what the entry shows (a program module's long importer): the status is still given", () => {
    const importer = `https://cdn.example.com/${"deep/".repeat(40)}app.ts`;
    const message = `module './chart.ts' imported by ${importer} failed: HTTP 503 for /chart.ts`;
    expect(describeEntry(error(message, 503), names)).toContain("(rev 1, HTTP 503): module './chart.ts'");
  });
});

describe("Timeline: a wait reads in seconds, as the Keys and Replicas tabs give it", () => {
  const names = (id: string) => id.toUpperCase();
  const base = { seq: 1, at: 0, key: "k", label: "GET /api/report" } as const;

  // Invariant 3b: the silence a lease measures. The Keys row reads "silent 1.5 s"; the Timeline read "silent for 1501 ms".
  it("a heartbeat lapse: 'silent for 1.5 s'", () => {
    const lapse: TimelineEntry = { ...base, type: "stale", replicaId: "a", rev: 1, reason: "lease-silence", silentMs: 1501 };
    expect(describeEntry(lapse, names)).toBe("A's heartbeat lapsed on GET /api/report: silent for 1.5 s");
  });

  it("a takeover after lease silence: 'after 0.8 s'", () => {
    const takeover: TimelineEntry = { ...base, type: "takeover", from: "a", to: "b", rev: 1, reason: "lease-silence", afterMs: 805 };
    expect(describeEntry(takeover, names)).toBe("B took over GET /api/report from A after 0.8 s: lease silence");
  });
});
