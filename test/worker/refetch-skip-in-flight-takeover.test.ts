/**
 * An explicit refetch (skipInFlight) waiting behind another device's request when the live worker
 * dies (its host tab crashed): the tab re-sends its ask to the next worker, which took it for a
 * plain refetch and joined that device's request, sent before the call. The user who pressed
 * "refresh" after a mutation was shown the answer read before it. Real ports, docs and stores; a
 * second device's store on a doc linked to the workers'; FakeLocks; the simulated host.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { linkDocs } from "../harness/doc-records.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/skip-takeover";

it("invariant 12 / skipInFlight across a takeover: the re-sent refetch still skips the request another device sent before the call", async () => {
  const host = new Host();
  const peer = new Y.Doc();
  const b = browser(host, { connectPeers: (doc) => (linkDocs(doc, peer), undefined) });
  const worker = (n: number) => b.workers.get(`shared-fetch:${b.name}:${n}`)?.stores()[0];
  const [t1, t2] = [b.tab(), b.tab()];
  await until(() => t2.replicaId === worker(0)?.replicaId);
  await until(() => b.workers.has(`shared-fetch:${b.name}:1`));
  const device = createSharedFetchStore({ doc: peer, fetch: host.fetch, locks: null, settleMs: 0 });
  cleanup(() => device.destroy());
  const before = device.ensure({ url: API });
  const [old] = await host.whenCalls(1);
  await until(() => b.workerStore(0).claims().length === 1);
  // t2's user refreshes: the answer must come from a request sent after this.
  const own = t2.refetch({ url: API }, { skipInFlight: true });
  await until(() =>
    b
      .workerStore(0)
      .inspect()
      .keys.some((k) => (k.local?.waiters ?? 0) > 0),
  );
  b.kill(0);
  await until(() => t2.replicaId === worker(1)?.replicaId);
  await new Promise((r) => setTimeout(r, 50));
  old!.respond(200, { v: "before the refresh" });
  await expect(before).resolves.toMatchObject({ data: { v: "before the refresh" } });
  const next = await Promise.race([host.whenCalls(2).then((calls) => calls[1]!), own]);
  expect(next).toHaveProperty("respond");
  (next as (typeof host.calls)[number]).respond(200, { v: "after the refresh" });
  await expect(own).resolves.toMatchObject({ status: "success", data: { v: "after the refresh" } });
  expect(host.calls).toHaveLength(2);
  expect(t1.mode).toBe("shared-worker");
});

it("skipInFlight across a takeover: a refetch whose own request was in flight joins its takeover (one more request, not two)", async () => {
  const host = new Host();
  const b = browser(host);
  const worker = (n: number) => b.workers.get(`shared-fetch:${b.name}:${n}`)?.stores()[0];
  const t2 = [b.tab(), b.tab()][1]!;
  await until(() => t2.replicaId === worker(0)?.replicaId);
  await until(() => worker(1) !== undefined);
  const own = t2.refetch({ url: API }, { skipInFlight: true });
  await host.whenCalls(1);
  await until(() => (worker(1)?.claims().length ?? 0) === 1);
  b.kill(0);
  const [, takeover] = await host.whenCalls(2);
  await until(() => t2.replicaId === worker(1)?.replicaId);
  await new Promise((r) => setTimeout(r, 50));
  takeover!.respond(200, { v: "taken over" });
  await expect(own).resolves.toMatchObject({ status: "success", data: { v: "taken over" } });
  await new Promise((r) => setTimeout(r, 50));
  expect(host.calls).toHaveLength(2);
});
