/**
 * DESIGN.md's one request per key inside a browser, across a standby's start. The standby (the
 * next generation's worker, started in advance) keeps its copy of the doc without IndexedDB: it
 * holds what the database holds only once the live worker's state has reached it. It answered a
 * tab's sync query "loaded" from its first instant: a tab replica of its own (connectBrowser's
 * fallback) opening while the live worker was busy took the standby's empty doc for everything,
 * was in sync before reading IndexedDB, and sent again the request whose result the worker held.
 * Real browser replicas and stores, real BroadcastChannel (a busy page's messages held until it
 * is free: test/sync/page-channels.ts), fake-indexeddb, FakeLocks.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { slowTab } from "../sync/page-channels.ts";
import { drain, liveWorkerThenStandby, poll } from "./standby-harness.ts";

const API = "https://api.example.test/standby-caught-up";
const MARK = "result-the-worker-holds";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.unstubAllGlobals();
});

it("a tab replica opening as the standby starts, the live worker busy, is not in sync on the standby's empty doc: no second request", async () => {
  // Generation 0 records the result for a tab of its; busy, generation 1 starts to stand by ...
  const { channels, host, locks, name } = await liveWorkerThenStandby(cleanups, "caught-up", API, MARK);

  // ... and a tab replica of this browser opens, its IndexedDB slow to open.
  const own = channels.as("own", () => slowTab(name, host, locks, "own", (f) => cleanups.push(f)));
  const got = own.store.ensure({ url: API });
  await poll(() => channels.answered("own")); // the standby's answer
  await drain();
  expect(own.seen.synced).toBe(false);

  channels.free("worker");
  await expect(got).resolves.toMatchObject({ status: "success", data: { v: MARK } });
  expect(host.calls.map((c) => c.from)).toEqual([`${name}:0`]);
});
