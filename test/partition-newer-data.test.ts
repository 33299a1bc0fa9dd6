/**
 * Revisions numbered apart merge by revision: the side that fetched more often wins, whatever its
 * data's age. A device cut off from the sync server, or a tab that fetched before its IndexedDB
 * loaded, recorded a lower revision than the other side's last one, though its data is newer.
 * Healed, every replica shows the newer data: its writer records it again at the winner's
 * revision (it showed the other side's older data, an hour old here, until the next fetch).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { cluster, onDevice, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

function counting(count: number) {
  const c = cluster(count, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  return c;
}

describe("revisions numbered apart: the newer data wins the merge, not the higher revision", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a device cut off from the sync server fetches an hour after the others' last refetch; healed, every replica shows its result", async () => {
    const c = counting(2);
    const [a, b] = c.stores;
    c.net.isolate(c.docOf(b!));
    for (let i = 0; i < 3; i++) await until(a!.refetch(R)); // revisions 1 to 3, { n: 3 } last
    await tick(HOUR);
    expect((await until(b!.ensure(R, { maxAgeMs: 0 }))).data).toEqual({ n: 4 }); // its revision 1
    const sent = b!.resultInfo(R)!.at;
    c.net.heal(c.docOf(b!));
    await tick(10);
    for (const s of [a!, b!]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: 4 } });
      // At the winner's revision, aged by the newer request: fresh for a minute's demand.
      expect(s.resultInfo(R)).toEqual({ rev: 3, at: sent });
    }
    expect((await until(a!.ensure(R, { maxAgeMs: 60_000 }))).data).toEqual({ n: 4 });
    expect(c.host.calls).toHaveLength(4);
  });

  it("a tab whose persisted doc loads after it fetched (IndexedDB slower than the sync wait) keeps its result over the past visit's higher revision", async () => {
    const c = counting(1);
    const [past] = c.stores;
    for (let i = 0; i < 5; i++) await until(past!.refetch(R));
    const persisted = Y.encodeStateAsUpdate(c.docOf(past!));
    past!.destroy();
    c.crash(past!);
    await tick(HOUR);
    const tab = c.join();
    expect((await until(tab.ensure(R))).data).toEqual({ n: 6 });
    Y.applyUpdate(c.docOf(tab), persisted);
    await tick(10);
    expect(tab.snapshot(R)).toEqual({ status: "success", data: { n: 6 } });
    expect(tab.resultInfo(R)!.rev).toBe(5);
    // The next refetch numbers past both.
    expect((await until(tab.refetch(R))).data).toEqual({ n: 7 });
    expect(tab.resultInfo(R)!.rev).toBe(6);
  });

  it("a later revision written by a replica that saw ours stays, even dated earlier by its clock running behind", async () => {
    const c = counting(2);
    const [a, behind] = c.stores;
    await until(a!.ensure(R));
    await tick(1_000);
    await onDevice(c, behind!, -HOUR, () => until(behind!.refetch(R)));
    await tick(10);
    for (const s of [a!, behind!]) expect(s.snapshot(R).data).toEqual({ n: 2 });
    expect(a!.resultInfo(R)!.rev).toBe(2);
  });

  it("when the other side's higher revision also holds the newer data, it stays", async () => {
    const c = counting(2);
    const [a, b] = c.stores;
    c.net.isolate(c.docOf(b!));
    await until(b!.ensure(R)); // b's revision 1, { n: 1 }
    await tick(HOUR);
    for (let i = 0; i < 3; i++) await until(a!.refetch(R)); // a's revisions 1 to 3, newer
    c.net.heal(c.docOf(b!));
    await tick(10);
    for (const s of [a!, b!]) expect(s.snapshot(R).data).toEqual({ n: 4 });
    expect(b!.resultInfo(R)!.rev).toBe(3);
  });
});
