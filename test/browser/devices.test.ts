/**
 * Two "devices" (separate browser contexts: no shared BroadcastChannel, IndexedDB or Web Locks)
 * joined through a real y-websocket server share one request; when the claimant device goes away
 * mid-request the other takes over.
 *
 * The second device opens once the first one's request is in flight: it learns of the claim only
 * through the sync server. (Two devices that *boot* at the same moment can both fetch: see the
 * "simultaneous" figures of bench/browser.ts; the settle window is shorter than what a booting
 * page's WebSocket takes to deliver a claim here.)
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startSyncServer, type SyncServer } from "../sync/ws-server.ts";
import { claimGaps, historyViolations, openTab, uniqueName, waitUntil } from "./harness.ts";
import { startE2E } from "./setup.ts";

let e2e: Awaited<ReturnType<typeof startE2E>>;
let sync: SyncServer;
beforeAll(async () => {
  e2e = await startE2E();
  sync = await startSyncServer();
});
afterEach(async () => {
  await e2e.closeContexts();
});
afterAll(async () => {
  await e2e?.close();
  await sync?.close();
});

const LEASE_MS = 1500;

it("two devices through y-websocket: one request; the claimant device closes mid-request and the other takes over", async () => {
  const { host } = e2e;
  const api = `/api/${uniqueName("devices")}`;
  host.plan(api, ["hang", { delayMs: 0 }]);
  const config = { api, tabs: uniqueName("tabs"), leaseMs: LEASE_MS, ws: sync.url, room: uniqueName("room") };
  const [contextA, contextB] = await Promise.all([e2e.newContext(), e2e.newContext()]);

  const a = await openTab(contextA!, host, config, "deviceA");
  await a.ready();
  await host.waitForCall(api, 1);
  await waitUntil("device A dispatched", () => a.dispatched());
  const b = await openTab(contextB!, host, config, "deviceB");
  await b.ready();
  await b.waitForStatus("pending");
  const bState = await b.state();
  expect(bState.mine).toBe("false");
  expect(host.count(api)).toBe(1);
  expect((await b.events()).filter((e) => e.type === "claimed")).toEqual([]);

  await a.context.close();
  a.crashed = true;
  await host.waitForCall(api, 2, 20_000);
  await b.waitForData();
  expect(JSON.parse((await b.state()).data)).toEqual({ path: api, n: 2 });
  expect(host.count(api)).toBe(2);
  const history = await b.history();
  expect(historyViolations(history), JSON.stringify(history)).toEqual([]);
  // The takeover rewrote A's claim into B's: B never saw the key without a claim before its result.
  const log = await b.claimLog();
  expect(claimGaps(log), JSON.stringify(log)).toEqual([]);
  expect(log.some((e) => e.holder === bState.replica && e.mine)).toBe(true);
  expect(await b.errors()).toEqual([]);
  expect(b.consoleProblems).toEqual([]);
});
