/**
 * Issue 10, crash → second request with the SharedWorker replica: a standby worker lives in the
 * renderer of the tab that started it, and dies with it. The tabs watch the lock it holds for its
 * life (STANDBY_LOCK_PREFIX), so they neither turn to a dead standby when the live worker dies
 * next (which cost the answer bound, 5 s, then a replica per tab and a request each) nor go on
 * without one. And a tab back from the back/forward cache after two takeovers turns to the live
 * generation, not to the dead one after its own. Real ports, docs and stores; FakeLocks (crash =
 * the browser releasing a dead realm's locks); fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { simulateCrash } from "../../devtools/actions.ts";
import { Host } from "../../sim/host.ts";
import { STANDBY_LOCK_PREFIX, WORKER_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/standby-dies";

type Browser = ReturnType<typeof browser>;

const gen = (b: Browser, n: number) => `shared-fetch:${b.name}:${n}`;

/** Resolves once the standby of generation `n` holds its lock: then the tabs have heard it stands. */
async function standing(b: Browser, n: number): Promise<void> {
  const held = async () => ((await b.locks.forTab("probe").query()).held ?? []).some((l) => l.name === STANDBY_LOCK_PREFIX + gen(b, n));
  while (!(await held())) await new Promise((r) => setTimeout(r, 2));
  // The tabs' answer (`standing`) crosses a port after the grant.
  await new Promise((r) => setTimeout(r, 20));
}

/** A tab with a page of its own (pagehide, pageshow), as a tab that goes into the back/forward cache. */
function tabWithPage(b: Browser) {
  const page = new EventTarget();
  const g = globalThis as { addEventListener?: unknown; removeEventListener?: unknown };
  g.addEventListener = page.addEventListener.bind(page);
  g.removeEventListener = page.removeEventListener.bind(page);
  try {
    return { tab: b.tab(), page };
  } finally {
    // The other tabs of this browser have no page events: they stay shown.
    delete g.addEventListener;
    delete g.removeEventListener;
  }
}

/** Three tabs asking for API (the host holds it), the next generation's standby standing. */
async function threeTabsAsking(b: Browser) {
  const tabs = [b.tab(), b.tab(), b.tab()];
  const asks = tabs.map((t) => t.ensure({ url: API }));
  await b.host.whenCalls(1);
  await standing(b, 1);
  return { tabs, asks };
}

/** The takeover's request answered: every tab shows it, each still served by a worker, 2 requests in all. */
async function servedByAWorker(b: Browser, { tabs, asks }: Awaited<ReturnType<typeof threeTabsAsking>>, from: string) {
  const calls = await b.host.whenCalls(2);
  calls[1]!.respond(200, { from });
  for (const ask of asks) await expect(ask).resolves.toMatchObject({ status: "success", data: { from } });
  // A tab that waited out the answer bound on a dead standby became a replica of its own ("tab").
  expect(tabs.map((t) => t.mode)).toEqual(["shared-worker", "shared-worker", "shared-worker"]);
  expect(b.host.calls).toHaveLength(2);
}

describe("a standby worker that dies", () => {
  it("is started again at once by the tabs that watched its lock; the live worker's death then finds it: 2 requests, every tab still served by a worker", async () => {
    const b = browser(new Host());
    const asking = await threeTabsAsking(b);
    const dead = b.workers.get(gen(b, 1));
    b.kill(1);
    await standing(b, 1);
    expect(b.workers.get(gen(b, 1)), "a fresh worker of that generation").not.toBe(dead);
    simulateCrash(asking.tabs[0]!);
    await servedByAWorker(b, asking, "generation 1");
  });

  it("dies with the live worker (one renderer held both): the tabs start a fresh worker of its generation, not a replica each after the answer bound", async () => {
    const b = browser(new Host());
    const asking = await threeTabsAsking(b);
    simulateCrash(asking.tabs[0]!);
    b.kill(1);
    await servedByAWorker(b, asking, "a fresh generation 1");
  });
});

describe("a tab back from the back/forward cache", () => {
  it("after two takeovers turns to the live generation, not to the dead one after its own", async () => {
    const host = new Host();
    let n = 0;
    host.auto = () => ({ status: 200, body: { n: ++n } });
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    const { tab: t3, page } = tabWithPage(b);
    for (const t of [t1, t2, t3]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    // Shown on its page (a component subscribed), as it will be again after the cache.
    cleanup(t3.subscribe({ url: API }, () => {}));
    await standing(b, 1);
    page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: true }));
    // Two takeovers while it is away: generation 0 dies, then 1 (the second once 2 stands by).
    simulateCrash(t1);
    await until(() => b.workers.get(gen(b, 1))?.stores()[0]?.replicaId === t1.replicaId);
    await standing(b, 2);
    simulateCrash(t1);
    await until(() => b.workers.get(gen(b, 2))?.stores()[0]?.replicaId === t1.replicaId);
    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    await until(() => t3.replicaId === b.workerStore(2).replicaId);
    // Served by the live worker: a refetch there reaches it.
    cleanup(() => (host.auto = undefined));
    await expect(t1.refetch({ url: API })).resolves.toMatchObject({ data: { n: 2 } });
    await until(() => (t3.snapshot({ url: API }).data as { n?: number } | undefined)?.n === 2);
    expect(t3.mode).toBe("shared-worker");
    expect(host.calls).toHaveLength(2);
  });

  it("hidden before its worker answered, shown while that worker lives: it turns to that worker, not to the next generation (the standby stays one)", async () => {
    const b = browser(new Host());
    const [t1, t2] = [b.tab(), b.tab()];
    const asks = [t1.ensure({ url: API }), t2.ensure({ url: API })];
    await b.host.whenCalls(1);
    await standing(b, 1);
    const { tab: t3, page } = tabWithPage(b);
    page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: true }));
    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    asks.push(t3.ensure({ url: API }));
    await until(() => t3.replicaId === b.workerStore(0).replicaId);
    // Before, it said hello to generation 1: the other tabs' standby, promoted beside the live worker.
    const held = ((await b.locks.forTab("probe").query()).held ?? []).map((l) => l.name);
    expect(held).toContain(WORKER_LOCK_PREFIX + gen(b, 0));
    expect(held).not.toContain(WORKER_LOCK_PREFIX + gen(b, 1));
    b.host.calls[0]!.respond(200, { one: true });
    for (const ask of asks) await expect(ask).resolves.toMatchObject({ data: { one: true } });
    expect(b.host.calls).toHaveLength(1);
  });
});
