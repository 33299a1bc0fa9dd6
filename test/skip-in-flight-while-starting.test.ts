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
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";

const REQ = { url: "https://api.example.test/skip-while-starting" };

it("a skipInFlight refetch asked while starting waits for the claim its sync brings in, then sends its own", async () => {
  const net = new Network(0);
  const host = new Host();
  const a = createSharedFetchStore({ doc: net.add(), fetch: host.fetch, settleMs: 0, locks: null });
  const first = a.ensure(REQ);
  const [call] = await host.whenCalls(1);

  const doc = new Y.Doc();
  let synced!: () => void;
  registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
  const b = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0, locks: null });
  const own = b.refetch(REQ, { skipInFlight: true });
  // B's sync brings A's claim in after the call, then B is ready.
  net.add(doc);
  expect(b.claims()).toHaveLength(1);
  synced();
  // Ready before A's answer comes: the claim is all B can judge the call by.
  for (let i = 0; i < 200 && b.inspect().lifecycle === "starting"; i++) await new Promise((r) => setTimeout(r, 10));
  expect(b.inspect().lifecycle).toBe("ready");
  call!.respond(200, { v: 1 });
  await expect(first).resolves.toMatchObject({ data: { v: 1 } });
  // Its own request, not the answer to A's.
  const next = await Promise.race([host.whenCalls(2).then((calls) => calls[1]!), own]);
  expect(next).toHaveProperty("respond");
  (next as (typeof host.calls)[number]).respond(200, { v: 2 });
  await expect(own).resolves.toMatchObject({ status: "success", data: { v: 2 } });
  expect(host.calls).toHaveLength(2);
  a.destroy();
  b.destroy();
  net.destroy();
});
