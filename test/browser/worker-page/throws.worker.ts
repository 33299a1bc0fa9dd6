/**
 * A worker script that throws as it starts, before it serves anything: a broken deploy
 * (test/browser/worker-throws.test.ts). Chromium fires its `error` only at the tabs connected as it throws.
 */
import { serveBrowserReplica } from "../../../src/worker/index.ts";

const scope = globalThis as { brokenAtStart?: boolean };
if (scope.brokenAtStart !== false) throw new Error("this worker's script threw as it started");
serveBrowserReplica();
