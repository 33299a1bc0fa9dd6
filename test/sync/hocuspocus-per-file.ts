// One real Hocuspocus server per test file: starting one per test would cost each test a port
// and a listen on a 2-core machine, and the devices of a file use rooms of their own anyway.
import { afterAll, afterEach, beforeAll, vi } from "vitest";
import { startHocuspocus } from "./ordered-devices.ts";

/** The provider's back-off these files' devices are given, short so the fake clock moves little. */
export const DELAY_MS = 200;
/** What the fake clock takes over: the provider's timers and its `Date.now()` reads together. */
export const FAKED = ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] as const;

export type HocuspocusPerFile = {
  /** The file's server; only within a test (it starts in beforeAll). */
  server: () => { url: string; close: () => Promise<void> };
  /** Run (and emptied) after each test, on whichever clock the test left; then timers are real again. */
  cleanups: (() => void)[];
};

/** Registers the file's hooks: the server up before its tests and closed after them, cleanups after each. */
export function hocuspocusPerFile(): HocuspocusPerFile {
  let server: Awaited<ReturnType<typeof startHocuspocus>> | undefined;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    server = await startHocuspocus();
  });
  afterAll(() => server?.close());
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    vi.useRealTimers();
  });
  return {
    server: () => {
      if (!server) throw new Error("hocuspocusPerFile: server() read outside a test (expected after beforeAll)");
      return server;
    },
    cleanups,
  };
}
