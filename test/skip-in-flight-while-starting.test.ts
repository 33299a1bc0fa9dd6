/**
 * refetch(req, { skipInFlight: true }) asks for a request sent after the call (EnsureOptions). Asked
 * while the store is still starting (its persistence not loaded yet: a page just opened, or
 * connectBrowser's tab replica made for asks that waited on a worker that failed), it joined the
 * claim another tab had in flight since before the call, once the sync brought that claim in: the
 * user who pressed "refresh" after a deploy was shown the answer to the request sent before it.
 * Real docs and stores; the simulated network and host; the store's sync held by a connector.
 */
import { expect, it } from "vitest";
import * as Y from "yjs";
import { registerConnector } from "../src/core/connectors.ts";
import { createSharedFetchStore } from "../src/index.ts";
import type { SharedFetchStore } from "../src/core/types.ts";
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";

const REQ = { url: "https://api.example.test/skip-while-starting" };

/** B, a store still starting, asks for a refresh; then its sync brings A's doc in and it becomes ready. */
async function refreshWhileStarting(net: Network, host: Host) {
  const doc = new Y.Doc();
  let synced!: () => void;
  registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
  const b = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0, locks: null });
  const own = b.refetch(REQ, { skipInFlight: true });
  net.add(doc);
  expect(b.claims()).toHaveLength(1);
  synced();
  // Ready before A's answer comes: the claim is all B can judge the call by.
  for (let i = 0; i < 200 && b.inspect().lifecycle === "starting"; i++) await new Promise((r) => setTimeout(r, 10));
  expect(b.inspect().lifecycle).toBe("ready");
  return { b, own };
}

/** B's refresh sends a request of its own (the `n`th) and resolves with its answer, not A's. */
async function expectOwnRequest(host: Host, n: number, own: ReturnType<SharedFetchStore["refetch"]>) {
  const next = await Promise.race([host.whenCalls(n).then((calls) => calls[n - 1]!), own]);
  expect(next).toHaveProperty("respond");
  (next as (typeof host.calls)[number]).respond(200, { v: n });
  await expect(own).resolves.toMatchObject({ status: "success", data: { v: n } });
  expect(host.calls).toHaveLength(n);
}

it("a skipInFlight refetch asked while starting waits for the claim its sync brings in, then sends its own", async () => {
  const net = new Network(0);
  const host = new Host();
  const a = createSharedFetchStore({ doc: net.add(), fetch: host.fetch, settleMs: 0, locks: null });
  const first = a.ensure(REQ);
  const [call] = await host.whenCalls(1);
  const { b, own } = await refreshWhileStarting(net, host);
  call!.respond(200, { v: 1 });
  await expect(first).resolves.toMatchObject({ data: { v: 1 } });
  await expectOwnRequest(host, 2, own);
  a.destroy();
  b.destroy();
  net.destroy();
});

it("so does one whose sync brings a recorded result in with the claim (the older result judged first)", async () => {
  const net = new Network(0);
  const host = new Host();
  const a = createSharedFetchStore({ doc: net.add(), fetch: host.fetch, settleMs: 0, locks: null });
  const ensured = a.ensure(REQ);
  (await host.whenCalls(1))[0]!.respond(200, { v: 1 });
  await expect(ensured).resolves.toMatchObject({ data: { v: 1 } });
  // A's second request, in flight before B's refresh is asked (dated strictly after A's result).
  const second = a.refetch(REQ);
  const [, call] = await host.whenCalls(2);
  await new Promise((r) => setTimeout(r, 5));
  const { b, own } = await refreshWhileStarting(net, host);
  call!.respond(200, { v: 2 });
  await expect(second).resolves.toMatchObject({ data: { v: 2 } });
  await expectOwnRequest(host, 3, own);
  a.destroy();
  b.destroy();
  net.destroy();
});
