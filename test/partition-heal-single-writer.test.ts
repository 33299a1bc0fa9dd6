/**
 * The limits of "exactly one replica writes" at a partition's heal (keepNewer): the newer data's
 * writer gone, the lowest replica id *in each replica's own presence view* records it again. Views
 * that differ make two writers; both write the same record, so every replica still shows one
 * value. A lowest replica that runs no keepNewer (an older build during a rollout) writes nothing:
 * every replica that does still shows the newer data (read in place of the winner), but the doc
 * keeps the older winner, so a replica started later shows the older data, refetched at the next
 * freshness demand (its own `at` dates it). Limits kept (README, Design notes): these pin them.
 */
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { internalsOf } from "../src/internals.ts";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { PRESENCE_FIELD } from "../src/core/presence.ts";
import { linkedAwareness } from "./devtools/awareness.ts";
import { cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

/** `writer` and `tab` share presence; `far` has presence of its own view (`farAwareness`). */
function replicas(farAwareness: Awareness, links = linkedAwareness(2)) {
  const c = cluster(0, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  const writer = c.join({ replicaId: "r-writer", awareness: links.all[0]! });
  const tab = c.join({ replicaId: "r-b-tab", awareness: links.all[1]! });
  const far = c.join({ replicaId: "r-c-far", awareness: farAwareness });
  return { c, links, writer, tab, far };
}

/** Far's revisions 1 to 3 while cut off, then the writer's newer revision 1; the writer closes. */
async function healAfterWriterLeft({ c, writer, tab, far }: ReturnType<typeof replicas>) {
  c.net.isolate(c.docOf(far));
  for (let i = 0; i < 3; i++) await until(far.refetch(R));
  await tick(HOUR);
  expect((await until(writer.ensure(R))).data).toEqual({ n: 4 });
  await tick(10);
  writer.destroy();
  c.crash(writer);
  await tick(10);
  const spies = [tab, far].map((s) => vi.spyOn(internalsOf(s).records.results, "set"));
  c.net.delayMs = 5; // each side hears of the other's rewrite only after deciding its own
  c.net.heal(c.docOf(far));
  await tick(50);
  return () => spies.map((spy) => spy.mock.calls.length);
}

const shows = (s: SharedFetchStoreWithExtras) => ({ data: s.snapshot(R).data, rev: s.resultInfo(R)?.rev });

describe("keepNewer's single writer by presence, at a partition's heal (freshness across partitions)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("two replicas whose presence views differ both record the newer data: the same record, one value everywhere", async () => {
    const alone = new Awareness(new Y.Doc()); // far hears none of the others' presence
    const r = replicas(alone);
    const writes = await healAfterWriterLeft(r);
    expect(writes()).toEqual([1, 1]); // each the lowest id present in its own view
    for (const s of [r.tab, r.far]) expect(shows(s)).toEqual({ data: { n: 4 }, rev: 3 });
    const late = r.c.join({ replicaId: "r-d-late" });
    await tick(10);
    expect(shows(late)).toEqual({ data: { n: 4 }, rev: 3 });
    r.links.destroy();
    alone.destroy();
  });

  it("the lowest id present runs no keepNewer (an older build): nobody records it; replicas here read it in place, one started later shows the older data", async () => {
    const links = linkedAwareness(4);
    const r = replicas(links.all[2]!, links);
    // An older build's replica: present, lowest id, never records the newer data again.
    links.all[3]!.setLocalStateField(PRESENCE_FIELD, { replicaId: "r-a-old" });
    const writes = await healAfterWriterLeft(r);
    expect(writes()).toEqual([0, 0]);
    for (const s of [r.tab, r.far]) expect(shows(s)).toEqual({ data: { n: 4 }, rev: 3 });
    const late = r.c.join({ replicaId: "r-d-late" });
    await tick(10);
    // The limit: the doc kept the older winner, the newer data only in the docs that saw both sides.
    expect(shows(late)).toEqual({ data: { n: 3 }, rev: 3 });
    expect((await until(late.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 5 }); // aged by its own date: refetched
    links.destroy();
  });
});
