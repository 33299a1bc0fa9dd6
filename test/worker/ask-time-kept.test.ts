/**
 * A tab's ask is judged as of when the app made it, not when a replica first hears it. A tab that
 * mounts while another tab's request is on its way (staleTime 0: maxAgeMs 0) may reach a replica
 * only later: its own replica is a chunk still loading (connectBrowser's tab mode, the ask handed
 * over), or its hello to the SharedWorker is still under way. The other tab's result, sent after
 * the ask, is as new as the request this tab would have sent: TanStack's mount joins a fetch in
 * flight, and so do we, with no second request. A mount after that result still revalidates it.
 * (The package test test/package/consumer.test.ts sent a second request in about one run of four
 * with two tabs opened at once without SharedWorker.) Real Y.Docs and stores; fake timers on Date only.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { RemoteStore } from "../../src/worker/remote-store.ts";
import { warmWorkerHeldHello } from "./browser-sim.ts";

const req = { url: "https://api.example.test/ask-time" };
afterEach(() => void vi.useRealTimers());

/** Another tab records { n: 1 } for `req`, its request sent at `sentAt`, answered at `answeredAt`; its doc's state. */
async function otherTab(sentAt: number, answeredAt = sentAt): Promise<Uint8Array> {
  vi.setSystemTime(sentAt);
  const doc = new Y.Doc();
  const host = new Host();
  const store = createSharedFetchStore({ doc, fetch: host.fetch, locks: null });
  const asked = store.ensure(req);
  const [call] = await host.whenCalls(1);
  vi.setSystemTime(answeredAt);
  call!.respond(200, { n: 1 });
  await expect(asked).resolves.toMatchObject({ status: "success" });
  store.destroy();
  return Y.encodeStateAsUpdate(doc);
}

/** A tab whose own replica has not loaded yet asks at `askedAt`; `handOver` gives it a replica on a doc (still starting when `starting`). */
function tabAsking(askedAt: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(askedAt);
  const tab = new RemoteStore("anonymous", 10_000, 60_000, "tab-1");
  const asked = tab.ensure(req, { maxAgeMs: 0 });
  const host = new Host();
  host.auto = () => ({ status: 200, body: { n: 2 } });
  const handOver = (state: Uint8Array, at: number, starting: boolean) => {
    vi.setSystemTime(at);
    const doc = new Y.Doc();
    let synced = () => {};
    if (starting) registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
    else Y.applyUpdate(doc, state);
    const local = createSharedFetchStore({ doc, fetch: host.fetch, locks: null });
    tab.fallBack(local);
    if (starting) Y.applyUpdate(doc, state);
    synced();
    return local;
  };
  return { asked, host, handOver };
}

describe("a tab's own replica, loaded after the tab asked (connectBrowser's tab mode)", () => {
  it("the other tab's request, sent after the ask and recorded before the replica loaded: its result answers, no request", async () => {
    const t = tabAsking(1_000);
    const state = await otherTab(1_010);
    const local = t.handOver(state, 1_020, false);
    await expect(t.asked).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    expect(t.host.calls).toHaveLength(0);
    local.destroy();
  });

  it("the same result loading while the replica is still starting: answered by it, no request", async () => {
    const t = tabAsking(1_000);
    const state = await otherTab(1_010);
    const local = t.handOver(state, 1_020, true);
    await expect(t.asked).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    expect(t.host.calls).toHaveLength(0);
    local.destroy();
  });

  it("the other tab's request in flight at the ask (sent before it, recorded after it): joined, its result answers, no request", async () => {
    for (const starting of [false, true]) {
      const t = tabAsking(1_000);
      const state = await otherTab(990, 1_010);
      const local = t.handOver(state, 1_020, starting);
      await expect(t.asked).resolves.toMatchObject({ status: "success", data: { n: 1 } });
      expect(t.host.calls).toHaveLength(0);
      local.destroy();
    }
  });

  it("a result whose request was sent and recorded before the ask is revalidated, as a mount on stale data is: one request", async () => {
    const state = await otherTab(990);
    const t = tabAsking(1_000);
    const local = t.handOver(state, 1_020, false);
    await expect(t.asked).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(t.host.calls).toHaveLength(1);
    local.destroy();
  });
});

describe("a tab of the SharedWorker replica whose hello is still under way", () => {
  it.each([
    ["sent after this tab asked", 2_010],
    ["in flight when this tab asked", 1_990],
  ])("another tab's request, %s, answers it: one request for both", async (_, sentAt) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_000);
    const host = new Host();
    const { first, second, open } = await warmWorkerHeldHello(host);
    vi.setSystemTime(sentAt);
    const done = first.ensure(req);
    await host.whenCalls(2);
    vi.setSystemTime(2_000);
    const asked = second.ensure(req, { maxAgeMs: 0 });
    vi.setSystemTime(2_020);
    host.calls[1]!.respond(200, { n: 1 });
    host.auto = () => ({ status: 200, body: { n: 2 } });
    await expect(done).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    vi.setSystemTime(2_030);
    open();
    await expect(asked).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(1);
    // A mount after that result revalidates it (staleTime 0), as plain TanStack does.
    vi.setSystemTime(2_040);
    await expect(second.ensure(req, { maxAgeMs: 0 })).resolves.toMatchObject({ status: "success" });
    expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(2);
  });
});
