/**
 * Revisions numbered apart, met while this replica's own request is in flight: the other side's
 * higher revision arrives with older data (a device reconnecting after a partition, a tab whose
 * IndexedDB loads late). The request was sent after that data was read: it is not aborted as
 * superseded, its result is recorded at the winner's revision (as keepNewer records a finished
 * one), and the ensure that waits for it gets the newer data.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

describe("an in-flight request is not superseded by a higher revision holding older data", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a device reconnecting after a partition while its request runs: its ensure resolves with its own, newer result, recorded at the winner's revision", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    c.net.isolate(c.docOf(b!));
    for (let i = 0; i < 3; i++) await until(a!.refetch(R)); // a's revisions 1 to 3, { n: 3 }
    await tick(HOUR);
    c.host.auto = undefined;
    const ensured = background(b!.ensure(R)); // b's revision 1, sent now
    await tick(10);
    const call = c.host.calls[3]!;
    expect(call.state).toBe("in-flight");
    c.net.heal(c.docOf(b!));
    await tick(10);
    expect(call.aborted).toBe(false);
    call.respond(200, { n: "newer" });
    const snap = await until(ensured, 10, 5_000);
    expect(snap.data).toEqual({ n: "newer" });
    await tick(10);
    for (const s of [a!, b!]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: "newer" } });
      expect(s.resultInfo(R)!.rev).toBe(3);
    }
    // The next refetch numbers past both sides.
    c.host.auto = () => ({ status: 200, body: { n: "next" } });
    expect((await until(a!.refetch(R))).data).toEqual({ n: "next" });
    expect(b!.resultInfo(R)!.rev).toBe(4);
  });

  it("a tab whose persisted doc loads while its first request runs keeps that request and shows its result", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [past] = c.stores;
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    for (let i = 0; i < 5; i++) await until(past!.refetch(R));
    const persisted = Y.encodeStateAsUpdate(c.docOf(past!));
    past!.destroy();
    c.crash(past!);
    await tick(HOUR);
    c.host.auto = undefined;
    const tab = c.join();
    const ensured = background(tab.ensure(R));
    await tick(10);
    const call = c.host.calls[5]!;
    Y.applyUpdate(c.docOf(tab), persisted);
    await tick(10);
    expect(call.aborted).toBe(false);
    call.respond(200, { n: "today" });
    expect((await until(ensured, 10, 5_000)).data).toEqual({ n: "today" });
    expect(tab.resultInfo(R)!.rev).toBe(5);
  });

  it("a higher revision holding data read after our request was sent still supersedes it", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.net.isolate(c.docOf(b!));
    const ensured = background(b!.ensure(R)); // b's revision 1, sent first
    await until(c.host.whenCalls(1), 10, 5_000);
    const first = c.host.calls[0]!;
    await tick(60_000);
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    for (let i = 0; i < 2; i++) await until(a!.refetch(R)); // a's revisions 1 and 2, read later
    c.net.heal(c.docOf(b!));
    await tick(10);
    expect(first.aborted).toBe(true);
    expect((await until(ensured, 10, 5_000)).data).toEqual({ n: 2 });
    expect(b!.resultInfo(R)!.rev).toBe(2);
  });
});
