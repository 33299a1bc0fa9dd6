/**
 * Two claims made at once: the doc keeps one, and the other replica yields its claim to it, sending
 * nothing. Its panel's Timeline told no yield, and where the rival's claim overwrote ours before the
 * panel looked (tabs whose Web Locks are refused, on a network that delivers at once) it did not
 * even tell our claim: only "B claimed". Now the yielder's panel tells its own claim, then its
 * yield ("A yielded … (rev 1) to B's claim: sent nothing"), from the store's `claimed` and
 * `yielded` events.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry, replicasOf } from "../../devtools/index.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import type { SharedFetchStoreWithExtras, StoreEvent } from "../../src/index.ts";
import { background, cluster, tick, twoTabs, URL_A, useFakeClock } from "../harness/replicas.ts";

beforeEach(useFakeClock);
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const R = { url: URL_A };
const LABEL = `GET ${URL_A}`;
const refuse = () => Promise.reject(new DOMException("The request was denied.", "SecurityError"));
const refusing: LockManagerLike = { request: refuse, query: refuse };

type Yielded = Extract<StoreEvent, { type: "yielded" }>;

function yieldOf(stores: SharedFetchStoreWithExtras[]): () => Yielded[] {
  const events: Yielded[] = [];
  for (const s of stores) s.onEvent((e) => void (e.type === "yielded" && events.push(e)));
  return () => events;
}

/** The yielder's panel lines about the key, oldest first, with A and B for names. */
async function linesOfYielder(stores: SharedFetchStoreWithExtras[], settle: () => Promise<void>) {
  const yielded = yieldOf(stores);
  const models = stores.map((s) => createDevtoolsModel(s, { minNotifyIntervalMs: 0 }));
  await tick(10);
  background(Promise.all(stores.map((s) => s.ensure(R))));
  await settle();
  expect(yielded()).toHaveLength(1);
  const loser = stores.findIndex((s) => s.replicaId !== yielded()[0]!.to);
  const [me, rival] = [stores[loser]!, stores[1 - loser]!];
  const name = (id: string) => (id === me.replicaId ? "A" : id === rival.replicaId ? "B" : "?");
  const timeline = models[loser]!.getSnapshot().timeline;
  for (const m of models) m.destroy();
  return {
    timeline,
    me,
    rival,
    lines: timeline
      .filter((e) => e.key !== undefined)
      .map((e) => describeEntry(e, name))
      .reverse(),
  };
}

it("two tabs refused their Web Locks claim at once and the rival's claim overwrites ours before the panel looks: our claim, theirs, then our yield", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const c = cluster(0, { settleMs: 100 });
  const stores = ["a", "b"].map(() => c.join({ locks: refusing, browserId: "browser-1" }));
  const { timeline, me, rival, lines } = await linesOfYielder(stores, () => tick(300));
  expect(c.host.calls).toHaveLength(1);
  expect(lines).toEqual([
    `A claimed ${LABEL} (rev 1)`,
    `B claimed ${LABEL} (rev 1)`,
    `A yielded ${LABEL} (rev 1) to B's claim: sent nothing`,
  ]);
  const entry = timeline.find((e) => e.type === "yielded")!;
  expect(entry).toMatchObject({ replicaId: me.replicaId, to: rival.replicaId, rev: 1 });
  expect(replicasOf(entry)).toEqual([me.replicaId, rival.replicaId]);
});

it("two replicas claim at once across a delay: our claim seen standing, replaced by theirs, then our yield", async () => {
  const c = cluster(2, { settleMs: 100 });
  c.net.delayMs = 5;
  const { lines } = await linesOfYielder(c.stores, () => tick(300));
  expect(c.host.calls).toHaveLength(1);
  expect(lines[0]).toBe(`A claimed ${LABEL} (rev 1)`);
  expect(lines.at(-1)).toBe(`A yielded ${LABEL} (rev 1) to B's claim: sent nothing`);
  expect(lines.filter((l) => l.startsWith("A claimed"))).toHaveLength(1);
});

it("a tab that steps back while waiting for its key's lock wrote no claim: its panel tells the join, no yield", async () => {
  const { c, a, b } = await twoTabs({ settleMs: 0 });
  const models = [a, b].map((s) => createDevtoolsModel(s, { minNotifyIntervalMs: 0 }));
  background(Promise.all([a.ensure(R), b.ensure(R)]));
  await tick(50);
  expect(c.host.calls).toHaveLength(1);
  for (const m of models) {
    expect(m.getSnapshot().timeline.filter((e) => e.type === "yielded")).toEqual([]);
    m.destroy();
  }
});
