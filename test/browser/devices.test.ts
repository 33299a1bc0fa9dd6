/**
 * Two "devices" (separate browser contexts: no shared BroadcastChannel, IndexedDB or Web Locks)
 * joined through a real y-websocket server share one request; when the claimant device goes away
 * mid-request the other takes over.
 *
 * The second device opens once the first one's request is in flight: it learns of the claim only
 * through the sync server. (Two devices that *boot* at the same moment are ordered by the sync
 * server, each claim fenced: test/sync/claim-fence.test.ts, and the "boots with 2+ requests across
 * two devices" figure of bench/browser.ts.)
 */
import { performance } from "node:perf_hooks";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startSyncServer, type SyncServer } from "../sync/ws-server.ts";
import { claimGaps, historyViolations, openTab, uniqueName, waitUntil, type Tab } from "./harness.ts";
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

/**
 * Long enough that only a failure event can bring the takeover inside TAKEOVER_BOUND_MS: by lease
 * silence it would come 20 s after A went at the earliest (its last heartbeat, lease/3 before, plus
 * the lease).
 */
const LEASE_MS = 30_000;
const TAKEOVER_BOUND_MS = LEASE_MS / 3;

/**
 * Device A claims and hangs at the host, device B joins it; `end` takes A away (returning when, in
 * node's performance.now()) and B must take over within TAKEOVER_BOUND_MS, never through "no claim".
 */
async function takeoverWhenClaimantGoes(end: (a: Tab) => Promise<number>): Promise<void> {
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

  const goneAt = await end(a);
  const second = await host.waitForCall(api, 2, TAKEOVER_BOUND_MS);
  expect(second.at - goneAt).toBeLessThan(TAKEOVER_BOUND_MS);
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
}

it("two devices through y-websocket: one request; the claimant device closes mid-request and the other takes over long before the lease", async () => {
  await takeoverWhenClaimantGoes(async (a) => {
    const closedAt = performance.now();
    await a.context.close();
    a.crashed = true;
    return closedAt;
  });
});

it("the claimant device crashes mid-request, with no goodbye: the other takes over on its presence removal by the server, long before the lease", async () => {
  // Page.crash runs no pagehide: no claim is marked abandoned and no awareness "left" is sent. Only
  // the server, seeing A's socket close, removes A's presence.
  await takeoverWhenClaimantGoes((a) => a.crash());
});
