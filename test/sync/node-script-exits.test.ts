/**
 * README, Next.js App Router / SSR: a store, with or without connectTabs, made in Node (a server
 * render, a test runner, a script) does not keep the process alive once its work is done: Node's
 * BroadcastChannels, the awareness's renewal timer and the heartbeat's idle tick are unref'd, as a
 * browser's never hold a page open. Pinned with a real Node child process that fetches once from a
 * real HTTP server on 127.0.0.1 and never calls destroy(): it must exit on its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToExit } from "../harness/run-to-exit.ts";

const entry = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));
// The script lives outside the repository: it imports the Yjs the sources resolve to, by its path.
const yjs = import.meta.resolve("yjs");
let server: Server;
let url: string;
let dir: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.setHeader("content-type", "application/json").end('{"n":1}'));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/n`;
  dir = mkdtempSync(join(tmpdir(), "shared-fetch-exit-"));
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A script that fetches once and ends without destroy(): its exit code and output. */
async function runScript(withTabs: boolean) {
  const file = join(dir, `script-${withTabs ? "tabs" : "alone"}.mts`);
  writeFileSync(
    file,
    `import * as Y from ${JSON.stringify(yjs)};
import { connectTabs, createSharedFetchStore } from ${JSON.stringify(entry)};
const doc = new Y.Doc();
const tabs = ${withTabs} ? connectTabs(doc, { name: "script" }) : undefined;
// A long lease: the heartbeat's rhythm (leaseMs/3) is then 20 s, past the kill bound below.
const store = createSharedFetchStore({ doc, awareness: tabs?.awareness, leaseMs: 60_000 });
const snap = await store.ensure(${JSON.stringify(url)});
console.log("data", JSON.stringify(snap.data));
`,
  );
  // Wide: tsx compiles the sources on a busy machine; a process kept alive runs into it.
  return runToExit(["--import", "tsx", file], { cwd: root, env: { ...process.env }, killAfterMs: 15_000 });
}

describe("a Node script ends on its own after its work, without destroy() (SSR, tests, scripts)", () => {
  it.each([
    ["a store alone", false],
    ["a store on connectTabs", true],
  ])(
    "%s: the process exits with code 0 once the fetch is done",
    async (_name, withTabs) => {
      const { code, output } = await runScript(withTabs);
      expect(output).toContain('data {"n":1}');
      expect(code).toBe(0);
    },
    30_000,
  );
});
