/**
 * The README quotes the bounds it promises as figures ("default 5 s", "at most 250", "the last 128
 * keys"), and the tests that pin the behaviour read the constants, not the figures: a constant
 * changed would keep every test green and leave the sentence false. Each sentence is looked up
 * word for word (whitespace folded), beside the value of the constant that holds its figure.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SYNC_WAIT_MS } from "../../src/core/connectors.ts";
import { CLEANUP_FALLBACK_MS } from "../../src/core/lane-deletes.ts";
import { LANE_CAP } from "../../src/core/lanes.ts";
import { RESOLVED_KEPT } from "../../src/core/program-work.ts";
import { ASK_WRITE_DELAY_MS, DEFAULT_RETENTION_MS } from "../../src/core/retention.ts";
import { IDB_OPEN_WAIT_MS } from "../../src/sync/indexeddb-persistence.ts";
import { FLUSH_WAIT_MS } from "../../src/sync/tab-flush.ts";
import { KEPT_UNHELD } from "../../src/worker/remote-views.ts";
import { PERSIST_AFTER_MS, RETIRE_AFTER_MS } from "../../src/worker/replica-bounds.ts";
import { RETRY_ASK_MS } from "../../src/worker/retry-wire.ts";
import { STANDBY_AFTER_TAKEOVER_MS, WORKER_PROBE_MS, WORKER_READY_MS } from "../../src/worker/worker-bounds.ts";

const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8").replace(/\s+/g, " ");

const BOUNDS: [sentence: string, constant: string, value: number, expected: number][] = [
  ["or after 2 s if a server never answers", "SYNC_WAIT_MS", SYNC_WAIT_MS, 2000],
  ["an open that has not answered after 2 s lets the tab go on", "IDB_OPEN_WAIT_MS", IDB_OPEN_WAIT_MS, 2000],
  ["a few ms and at most 250, so a wait still on its way is heard", "FLUSH_WAIT_MS", FLUSH_WAIT_MS, 250],
  ["a few ms, at most 250), then counts the waits it heard", "FLUSH_WAIT_MS", FLUSH_WAIT_MS, 250],
  ["Records nobody asked for within `retentionMs` (default 24 h)", "DEFAULT_RETENTION_MS", DEFAULT_RETENTION_MS, 24 * 3600_000],
  ["its ask record a second after it asks (`ASK_WRITE_DELAY_MS`)", "ASK_WRITE_DELAY_MS", ASK_WRITE_DELAY_MS, 1000],
  ["(by any replica 2 s later, if that one is gone)", "CLEANUP_FALLBACK_MS", CLEANUP_FALLBACK_MS, 2000],
  ["A replica starts a new lane every 256 appends", "LANE_CAP", LANE_CAP, 256],
  ["a replica remembers the last 4 096 programs it resolved", "RESOLVED_KEPT", RESOLVED_KEPT, 4096],
  ["it does not answer within `workerTimeoutMs` (default 5 s; `Infinity`: never)", "WORKER_READY_MS", WORKER_READY_MS, 5000],
  ["a tab that heard none within 1 s starts the worker once more", "WORKER_PROBE_MS", WORKER_PROBE_MS, 1000],
  ["so it lives in another renderer (after a takeover, 1 s later", "STANDBY_AFTER_TAKEOVER_MS", STANDBY_AFTER_TAKEOVER_MS, 1000],
  ["the worker serves on for 5 s (`RETIRE_AFTER_MS`", "RETIRE_AFTER_MS", RETIRE_AFTER_MS, 5000],
  ["So does a worker whose ports never said hello within 5 s (at least", "RETIRE_AFTER_MS", RETIRE_AFTER_MS, 5000],
  ["once the takeover's key locks are granted, at most 250 ms later", "PERSIST_AFTER_MS", PERSIST_AFTER_MS, 250],
  ["no answer within 2 s means no retry", "RETRY_ASK_MS", RETRY_ASK_MS, 2000],
  ["for the last 128 keys it let go", "KEPT_UNHELD", KEPT_UNHELD, 128],
];

describe("README: the bounds it quotes are the code's", () => {
  it.each(BOUNDS)("%s: %s", (sentence, _constant, value, expected) => {
    expect(readme).toContain(sentence);
    expect(value).toBe(expected);
  });
});
