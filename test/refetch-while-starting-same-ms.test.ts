/**
 * A refetch asked of a store still starting is judged, once what was recorded comes in, as of when
 * the app asked: only a result whose request was sent after the ask's millisecond answers it. A
 * result sent in that same ms may be the very one the app refetches past (a SharedWorker tab shown
 * v1, refetching right after, whose worker then failed: its own replica, starting, takes the ask
 * over with the ask's time). Before, a tie counted as sent since the ask and the refetch resolved
 * with v1, no request sent, as 80518ea fixed for a refetch heard late by a store already in sync.
 * Real Y.Docs and stores; the simulated network and host; fake timers on Date only.
 */
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { registerConnector } from "../src/core/connectors.ts";
import { ASKED_AT } from "../src/core/store-options.ts";
import { createSharedFetchStore } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";

const REQ = { url: "https://api.example.test/refetch-while-starting" };
const ASKED = 2_000;

afterEach(() => void vi.useRealTimers());

/** A's request sent at `sentAt` records v1; B, starting, is handed a refetch asked at ASKED, then syncs A's doc in. */
async function refetchWhileStarting(sentAt: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(sentAt);
  const net = new Network(0);
  const host = new Host();
  const a = createSharedFetchStore({ doc: net.add(), fetch: host.fetch, settleMs: 0, locks: null });
  const first = a.ensure(REQ);
  (await host.whenCalls(1))[0]!.respond(200, { v: 1 });
  await expect(first).resolves.toMatchObject({ data: { v: 1 } });
  vi.setSystemTime(ASKED + 5);
  const doc = new Y.Doc();
  let synced!: () => void;
  registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
  const b = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0, locks: null });
  const refetched = b.refetch(REQ, { [ASKED_AT]: ASKED } as never);
  net.add(doc);
  synced();
  host.auto = () => ({ status: 200, body: { v: 2 } });
  const snap = await refetched;
  a.destroy();
  b.destroy();
  net.destroy();
  return { snap, calls: host.calls.length };
}

it("a result sent in the refetch's own ms (before the ask) does not answer it: the refetch sends its own request", async () => {
  const { snap, calls } = await refetchWhileStarting(ASKED);
  expect(snap).toMatchObject({ status: "success", data: { v: 2 } });
  expect(calls).toBe(2);
});

it("a result sent after the refetch's ms answers it: one request", async () => {
  const { snap, calls } = await refetchWhileStarting(ASKED + 1);
  expect(snap).toMatchObject({ status: "success", data: { v: 1 } });
  expect(calls).toBe(1);
});
