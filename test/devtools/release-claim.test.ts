/**
 * The panel's "release my claim" action, across tabs on a real BroadcastChannel (connectTabs,
 * fake-indexeddb): the claim leaves the doc for every replica, a tab waiting on the key takes the
 * work and sends its own request, the released request is not aborted (it may still write), and
 * the releasing tab's panel and a bystander's tell the same story: released, then claimed anew.
 * Only refusals of this action were pinned before.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { releaseClaim } from "../../devtools/actions.ts";
import { createDevtoolsModel, describeEntry, type DevtoolsModel } from "../../devtools/index.ts";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0).reverse()) stop();
});

describe("devtools action: release my claim", () => {
  it("a waiting tab takes the work over and sends its request; the released one runs on; every panel tells released, then claimed", async () => {
    const name = `release-claim-${Math.random().toString(36).slice(2)}`;
    const calls: { signal: AbortSignal | undefined; answer: (body: unknown) => void }[] = [];
    const fetch = ((_url: string, init?: RequestInit) =>
      new Promise<Response>((resolve) =>
        calls.push({ signal: init?.signal ?? undefined, answer: (body) => resolve(Response.json(body)) }),
      )) as typeof globalThis.fetch;
    const tab = () => {
      const doc = new Y.Doc();
      const conn = connectTabs(doc, { name });
      const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch, settleMs: 10 });
      stops.push(
        () => conn.destroy(),
        () => store.destroy(),
      );
      return { conn, store };
    };
    const [a, b, bystander] = [tab(), tab(), tab()];
    await Promise.all([a, b, bystander].map((t) => t.conn.whenSynced));
    const models: DevtoolsModel[] = [a, bystander].map((t) => createDevtoolsModel(t.store, { minNotifyIntervalMs: 0 }));
    stops.push(() => models.forEach((m) => m.destroy()));
    const req = { url: "http://127.0.0.1:9/report" };
    const key = a.store.keyOf(req);
    const claimant = (t: { store: typeof a.store }) => internalsOf(t.store).records.claims.get(key)?.replicaId;

    const first = a.store.ensure(req);
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    await vi.waitFor(() => expect(claimant(b)).toBe(a.store.replicaId));
    const waiting = b.store.ensure(req);
    // B joins A's request rather than sending its own.
    await vi.waitFor(() => expect(b.store.inspect().keys.find((k) => k.key === key)?.local?.waiters).toBeGreaterThan(0));
    expect(calls).toHaveLength(1);

    expect(releaseClaim(a.store, key)).toEqual({ ok: true });
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    await vi.waitFor(() => expect([claimant(a), claimant(bystander)]).toEqual([b.store.replicaId, b.store.replicaId]));
    expect(calls[0]!.signal?.aborted).toBe(false);

    const names = (id: string) => (id === a.store.replicaId ? "A" : id === b.store.replicaId ? "B" : "C");
    const label = "GET http://127.0.0.1:9/report";
    for (const model of models) {
      const told = model.timeline
        .entries({ key })
        .map((e) => describeEntry(e, names))
        .filter((line) => !line.includes("joined"))
        .reverse();
      expect(told).toEqual([
        `A claimed ${label} (rev 1)`,
        `A released ${label} (rev 1) with nothing recorded`,
        `B claimed ${label} (rev 1)`,
      ]);
    }

    calls[1]!.answer({ by: "B" });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "B" } });
    await expect(first).resolves.toMatchObject({ status: "success", data: { by: "B" } });
  });
});
