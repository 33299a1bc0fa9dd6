/**
 * README, Usage ("Devices"): the y-websocket server a new user starts for `connectPeers` is the
 * package's own bin, `npx shared-fetch-server`. Run here as npm runs a bin in an app that
 * installed the tarball: the file the packed manifest's `bin` names, in a copy of the unpacked
 * package, its imports resolved from what that manifest declares and nothing else. Before, the
 * README named `npm run server`, a script of this repository that the tarball does not hold.
 * Two devices, each a store on its own doc synced through that server, share one request.
 */
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { startHost } from "../browser/host.ts";
import { startSyncServer } from "../sync/ws-server.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
type Manifest = { bin?: Record<string, string>; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };

let app: string;
let pkg: Manifest;
const installed = () => join(app, "node_modules", "shared-fetch");

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), "shared-fetch-sync-bin-"));
  // A copy, not a link: Node resolves a linked file's imports from its real path, outside the app.
  await cp(inject("packedDir"), installed(), { recursive: true });
  pkg = JSON.parse(await readFile(join(installed(), "package.json"), "utf8")) as Manifest;
  for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]) {
    await mkdir(dirname(join(app, "node_modules", name)), { recursive: true });
    await symlink(join(root, "node_modules", name), join(app, "node_modules", name), "junction");
  }
});

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});

describe("the packed package's sync server (npx shared-fetch-server)", () => {
  it("starts from the tarball on 127.0.0.1 and two devices through it share one request", async () => {
    const bin = pkg.bin?.["shared-fetch-server"];
    expect(bin, `package.json "bin" of the tarball: ${JSON.stringify(pkg.bin)}`).toBeTypeOf("string");
    const server = await startSyncServer(join(installed(), bin!));
    expect(server.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    onTestFinished(() => server.close()); // rejects unless the server exits with code 0

    const { connectPeers, createSharedFetchStore } = (await import(
      pathToFileURL(join(installed(), "dist/src/index.js")).href
    )) as typeof import("../../src/index.ts");
    const host = await startHost(app);
    onTestFinished(() => host.close());
    const api = "/api/devices";
    host.plan(api, ["hold"]);
    const device = () => {
      const doc = new Y.Doc();
      const peers = connectPeers(doc, { url: server.url, room: "demo", WebSocketPolyfill: WebSocket });
      const store = createSharedFetchStore({ doc, awareness: peers.awareness });
      onTestFinished(() => {
        store.destroy();
        peers.destroy();
        doc.destroy();
      });
      return { peers, store };
    };
    const [a, b] = [device(), device()];
    await Promise.all([a.peers.whenSynced, b.peers.whenSynced]);

    const req = { url: `${host.origin}${api}` };
    const first = a.store.ensure(req);
    const call = await host.waitForCall(api, 1, 10_000);
    const second = b.store.ensure(req);
    await vi.waitFor(() => expect(b.store.snapshot(req).claim).toMatchObject({ mine: false, stale: false }), { timeout: 10_000 });
    call.respond({ n: 1 });
    const [one, two] = await Promise.all([first, second]);
    expect([one.status, two.status]).toEqual(["success", "success"]);
    expect(two.data).toEqual({ n: 1 });
    expect(host.count(api)).toBe(1);
  });
});
