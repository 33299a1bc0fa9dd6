// @vitest-environment jsdom
/**
 * README, "Retries run inside the claim": a tab waiting on another replica's claim shows that
 * claim's failures as its `failureCount` and `failureReason`, and TanStack's `failureReason` is
 * always the last failure. A peer's next claim that fails as often with the same message but
 * another HTTP status (503 then 500: "Service unavailable" in both bodies) is another failure: the
 * joined tab's reason reads the new status, where it kept the first claim's reason object. A peer
 * writing its claims straight into the doc (real Yjs), fake timers.
 */
import { useQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { SharedFetchError, sharedQueryOptions } from "../../src/index.ts";
import { peerWrites } from "../harness/doc-records.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const claimOf = (extra: object) => ({ replicaId: "peer-1", nonce: "n-1", rev: 1, leaseMs: 600_000, ...extra });

it("a new claim whose failure differs from the last only in its status shows that status in failureReason", async () => {
  useFakeClock();
  const c = cluster(0, { settleMs: 0 });
  const b = c.join();
  const seen: string[] = [];
  function Pane() {
    const q = useQuery(sharedQueryOptions(b, URL_A, { retry: 2, retryDelay: 1000 }));
    const r = q.failureReason;
    const line = `${q.failureCount} ${r instanceof SharedFetchError ? r.status : "-"} ${r?.message ?? "-"}`;
    if (seen.at(-1) !== line) seen.push(line);
    return null;
  }
  const key = b.keyOf(URL_A);
  const message = "Service unavailable";
  peerWrites(c.docOf(b), [{ t: "claims", k: key, v: claimOf({ failed: { n: 2, message, status: 503 } }), s: 1 }]);
  render(app(b, <Pane />));
  await act(() => vi.advanceTimersByTimeAsync(10));
  // The peer's next claim (a refetch past the first) fails twice too, the same words, another status.
  peerWrites(c.docOf(b), [{ t: "claims", k: key, v: claimOf({ nonce: "n-2", rev: 2, failed: { n: 2, message, status: 500 } }), s: 2 }]);
  await act(() => vi.advanceTimersByTimeAsync(10));
  expect(seen).toEqual(["0 - -", `2 503 ${message}`, `2 500 ${message}`]);
  expect(c.host.calls).toHaveLength(0);
});
