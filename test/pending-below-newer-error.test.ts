/**
 * Invariant 8 (pending is truthful) and 7 (an error never erases a result) when a request still
 * runs below a newer revision's error: a sent its request at revision 1; b, cut off from a's
 * heartbeats, took the key over with a refetch past it (revision 2, sent after a's) and that
 * request failed. Healed, a's request still runs under its claim of revision 1, below b's error of
 * revision 2. Both showed "error, no data" while it ran: a claim below the latest recorded
 * revision was read as finished work. As TanStack shows a fetch in flight after an error
 * (`status: "error"`, `fetchStatus: "fetching"`), both now show pending beside the error, a's
 * claim named. a's data, when it comes, is shown beside the error: a refetch sent after its
 * request failed, and the snapshot keeps data while a refetch fails (DESIGN.md), as TanStack's
 * refetch error does. Once a goes silent for its lease, a pane that only shows the key is told
 * the error stands. Found by test/chaos-replicas.test.ts (seeds 5, 11, 39).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 300;

async function requestBelowNewerError() {
  const net = new Network(0);
  const host = new Host();
  const docs = [1, 2].map((clientID) => Object.assign(new Y.Doc(), { clientID }));
  const [a, b] = ["a", "b"].map((name, i) => {
    net.add(docs[i]);
    return createSharedFetchStore({ doc: docs[i]!, replicaId: name, fetch: host.fetchAs(name), leaseMs: LEASE, settleMs: 20, locks: null });
  }) as [ReturnType<typeof createSharedFetchStore>, ReturnType<typeof createSharedFetchStore>];
  const shown: string[] = [];
  b.subscribe(req, () => shown.push(b.snapshot(req).status));
  a.subscribe(req, () => {}); // a shows the key: its request lives on once its ask is answered
  background(a.ensure(req));
  await tick(50);
  net.isolate(docs[1]!);
  background(b.refetch(req, { skipInFlight: true })); // past a's revision 1: b takes over at 2 once a is silent
  await tick(LEASE + 50);
  expect(host.calls.map((c) => c.from)).toEqual(["a", "b"]);
  host.calls[1]!.respond(500, "no");
  await tick();
  net.heal();
  await tick();
  expect(host.calls[0]!.state).toBe("in-flight");
  return { net, host, a, b, docs, shown };
}

describe("invariants 7, 8: a request in flight below a newer revision's error", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("is pending, beside the error, on its own replica and on one in sync with it; its data is then shown beside the error", async () => {
    const { host, a, b, shown } = await requestBelowNewerError();
    for (const [s, mine] of [
      [a, true],
      [b, false],
    ] as const) {
      const snap = s.snapshot(req);
      expect(snap).toMatchObject({ status: "pending", claim: { replicaId: "a", mine, stale: false } });
      expect(snap.error?.status).toBe(500);
    }
    await tick(3 * LEASE); // a's heartbeats keep its claim live while its request runs
    expect(b.snapshot(req).status).toBe("pending");
    host.calls[0]!.respond(200, { from: "a" });
    await tick();
    for (const s of [a, b]) expect(s.snapshot(req)).toMatchObject({ status: "error", data: { from: "a" }, error: { status: 500 } });
    expect(shown.slice(shown.lastIndexOf("pending") + 1)).toEqual(["error"]);
    expect(host.calls).toHaveLength(2);
    a.destroy();
    b.destroy();
  });

  it("once a goes silent for its lease, a pane that only shows the key is told the error stands, and sends nothing", async () => {
    const { net, host, a, b, docs, shown } = await requestBelowNewerError();
    expect(b.snapshot(req).status).toBe("pending");
    net.remove(docs[0]!); // a crashes: its heartbeats stop reaching b
    await tick(LEASE + 50);
    expect(shown.at(-1)).toBe("error");
    expect(b.snapshot(req).claim).toBeUndefined();
    expect(host.calls).toHaveLength(2);
    a.destroy();
    b.destroy();
  });
});
