/**
 * A replica remembers which programs it saw resolved (so that one evicted and asked again still
 * asks past the HTTP cache: evicted-program-bypasses-http-cache.test.ts), but a long-lived page
 * that resolves ever new entries keeps the last RESOLVED_KEPT of them, not every one it ever ran.
 * Real Yjs doc and records tables; each resolution withdrawn before it sends anything.
 */
import { expect, it } from "vitest";
import { ProgramWork, RESOLVED_KEPT } from "../../src/core/program-work.ts";
import { recordsReplica } from "../harness/doc-records.ts";

it("5 000 distinct programs resolved in turn leave RESOLVED_KEPT keys remembered, the most recent among them", async () => {
  const { records } = recordsReplica();
  const fetchFn: typeof fetch = () => Promise.reject(new Error("nothing is fetched here"));
  const work = new ProgramWork({ identity: "me", fetch: fetchFn, leaseMs: 10_000, records });
  const aborted = AbortSignal.abort();
  const runs: Promise<unknown>[] = [];
  for (let i = 0; i < 5000; i++) {
    const job = work.job({ url: `http://127.0.0.1:9/app/entry.ts?page=${i}` });
    runs.push(job.run({ signal: aborted, rev: 1, idempotencyKey: `k${i}` }).catch(() => {}));
  }
  await Promise.all(runs);
  const resolved = (work as unknown as { resolved: Set<string> }).resolved;
  expect(resolved.size).toBe(RESOLVED_KEPT);
  expect(resolved.has(work.keyOf({ url: "http://127.0.0.1:9/app/entry.ts?page=4999" }))).toBe(true);
  expect(resolved.has(work.keyOf({ url: "http://127.0.0.1:9/app/entry.ts?page=0" }))).toBe(false);
});
