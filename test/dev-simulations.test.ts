import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { internalsOf } from "../src/internals.ts";
import { openDocRecords } from "../src/core/doc-records.ts";
import { validateProgramData } from "../src/core/program-work.ts";
import { linkedAwareness } from "./devtools/awareness.ts";
import { validateError, resultValidator, validateJson } from "../src/core/records.ts";
import { background, cluster, tick, until, URL_A, useFakeClock, twoTabs } from "./harness/replicas.ts";

const req = { url: URL_A };

describe("records name their writer (`by`, for the devtools)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a result and an error carry the id of the replica whose attempt wrote them; the inspector shows it", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const first = background(a!.ensure(req));
    await tick(1);
    c.host.calls[0]!.respond(200, { n: 1 });
    await until(first);
    expect(b!.inspect().keys[0]!.result).toEqual({ rev: 1, data: { n: 1 }, by: a!.replicaId });
    const again = background(b!.refetch(req));
    await tick(1);
    c.host.calls[1]!.respond(500, "no");
    await until(again);
    expect(a!.inspect().keys[0]!.error).toMatchObject({ rev: 2, status: 500, by: b!.replicaId });
    expect(internalsOf(a!).records.results.get(a!.keyOf(req))).toMatchObject({ by: a!.replicaId });
  });

  it("a `by` that is not a replica id makes the record malformed (ignored), absent is fine", () => {
    const validate = resultValidator(validateJson);
    expect(validate({ rev: 1, data: 1 })).toEqual({ rev: 1, data: 1 });
    expect(validate({ rev: 1, data: 1, by: 7 })).toBe("result.by is not a replica id");
    expect(validate({ rev: 1, data: 1, by: "" })).toBe("result.by is not a replica id");
    expect(validateError({ rev: 1, message: "m", by: "x".repeat(201) })).toBe("error.by is not a replica id");
    expect(validateError({ rev: 1, message: "m", by: "r1" })).toEqual({ rev: 1, message: "m", by: "r1" });
  });
});

describe("development simulations (internals: dev.crash, dev.pauseNetwork, dev.stopHeartbeats)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("crash: the replica writes nothing more, keeps its claim in the doc, and its Web Lock is let go", async () => {
    const { c, a, b } = await twoTabs({ settleMs: 0 });
    background(a.ensure(req));
    await tick(10);
    b.subscribe(req, () => {});
    expect(b.inspect().keys[0]!.claim).toMatchObject({ replicaId: a.replicaId, stale: false });
    const beats = () => internalsOf(b).records.beats.get(a.replicaId)?.n;
    const before = beats();

    internalsOf(a).dev.crash();
    expect(internalsOf(a).dev.crashed).toBe(true);
    await tick(1);
    // b saw the lock go and took the work over, as after a real crash.
    expect(b.inspect().keys[0]!.claim).toMatchObject({ replicaId: b.replicaId, mine: true });
    expect(c.host.calls).toHaveLength(2);
    // a answers late: nothing it does reaches the doc any more (no result, no heartbeat, no release).
    c.host.calls[0]!.respond(200, "from a");
    await tick(10_000);
    expect(internalsOf(b).records.results.get(b.keyOf(req))).toBeUndefined();
    expect(beats()).toBe(before);
    a.destroy();
    expect(internalsOf(b).records.claims.get(b.keyOf(req))?.replicaId).toBe(b.replicaId);
    expect(
      internalsOf(b)
        .records.claims.entries()
        .map(([key]) => key),
    ).toEqual([b.keyOf(req)]);
  });

  it("crash across devices: its presence leaves, B takes its claim over, and A sees none of it (no update, no result, no beat)", async () => {
    const presence = linkedAwareness(2);
    onTestFinished(() => presence.destroy());
    const [awA, awB] = presence.all as [(typeof presence.all)[0], (typeof presence.all)[0]];
    // A lease far longer than the test: only the presence event can explain a takeover.
    const c = cluster(0, { settleMs: 0, leaseMs: 600_000 });
    const a = c.join({ awareness: awA });
    const b = c.join({ awareness: awB });
    const other = { url: `${URL_A}/other` };
    background(a.ensure(req));
    background(a.ensure(other));
    await tick(10);
    let seenByA = 0;
    a.subscribe(req, () => seenByA++);
    b.subscribe(req, () => {});
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: false });
    // Past lease/3: A's heartbeat vouches for its work.
    await tick(250_000);
    const beats = () => internalsOf(b).records.beats.get(a.replicaId)?.n;
    const before = beats();
    expect(before).toBeGreaterThan(0);
    expect(awB.getStates().has(awA.clientID)).toBe(true);
    seenByA = 0;

    internalsOf(a).dev.crash();
    await tick(1);
    // B saw A leave (invariant 3: a real event) and took over the key it shows; the other key's claim stays, stale.
    expect(awB.getStates().has(awA.clientID)).toBe(false);
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: b.replicaId, mine: true });
    const left = b.inspect().keys.find((k) => k.key === b.keyOf(other))!.claim;
    expect(left).toMatchObject({ replicaId: a.replicaId, stale: true, reason: "presence-left" });
    expect(c.host.calls.map((call) => call.url)).toEqual([URL_A, other.url, URL_A]);

    // The takeover reached A's doc (the network still delivers), yet A's store never read it.
    const raw = openDocRecords(c.docOf(a), validateProgramData);
    expect(raw.claims.get(a.keyOf(req))?.replicaId).toBe(b.replicaId);
    raw.destroy();
    expect(a.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, mine: true });
    expect(a.inspect().keys.find((k) => k.key === a.keyOf(req))!.claim).toMatchObject({ replicaId: a.replicaId });

    c.host.calls[2]!.respond(200, "from b");
    await tick(10);
    expect(b.snapshot(req)).toMatchObject({ status: "success", data: "from b" });
    expect(a.snapshot(req)).toMatchObject({ status: "pending" });
    expect(seenByA).toBe(0);

    // A's late response is never seen; nothing it asks for after the crash goes out; no beat from it.
    c.host.calls[0]!.respond(200, "from a");
    background(a.ensure({ url: `${URL_A}/after-crash` }));
    await tick(600_000);
    expect(c.host.calls).toHaveLength(3);
    expect(beats()).toBe(before);
    expect(b.snapshot(req).data).toBe("from b");
    expect(a.snapshot(req).data).toBeUndefined();
  });

  it("pause network: requests wait until resumed, then go out; an abort while paused sends nothing", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const dev = internalsOf(a!).dev;
    dev.pauseNetwork(true);
    expect(dev.networkPaused).toBe(true);
    const waiting = background(a!.ensure(req));
    await tick(60_000);
    expect(c.host.calls).toHaveLength(0);
    expect(a!.snapshot(req).status).toBe("pending");
    const aborted = new AbortController();
    const other = background(a!.ensure({ url: `${URL_A}/other` }, { signal: aborted.signal }));
    await tick(1);
    aborted.abort();
    await expect(other).rejects.toMatchObject({ name: "AbortError" });
    dev.pauseNetwork(false);
    await tick(1);
    expect(c.host.calls.map((call) => call.url)).toEqual([URL_A]);
    c.host.calls[0]!.respond(200, "ok");
    await expect(until(waiting)).resolves.toMatchObject({ status: "success", data: "ok" });
  });
  it("stopHeartbeats (invariant 10 switched off): a healthy claim ages with its request and is taken over after one lease; on again, it is not", async () => {
    const c = cluster(2, { settleMs: 0, leaseMs: 600 });
    const [a, b] = c.stores;
    const dev = internalsOf(a!).dev;
    const beats = () => internalsOf(b!).records.beats.get(a!.replicaId)?.n;
    background(a!.ensure(req));
    await tick(1);
    const waiting = background(b!.ensure(req));
    // Heartbeats on: four leases of a slow request, no takeover.
    await tick(2400);
    expect(c.host.calls).toHaveLength(1);
    const beating = beats();
    expect(beating).toBeGreaterThan(0);

    dev.stopHeartbeats(true);
    expect(dev.heartbeatsStopped).toBe(true);
    await tick(400);
    expect(beats()).toBe(beating);
    expect(c.host.calls).toHaveLength(1);
    // One lease of silence after a's last beat: b takes the healthy claim over and asks again.
    await tick(400);
    expect(c.host.calls).toHaveLength(2);
    expect(b!.inspect().keys[0]!.claim).toMatchObject({ replicaId: b!.replicaId, mine: true });
    // Everything but the beats is still written: a's answer, home first, is the result.
    c.host.calls[0]!.respond(200, "from a");
    await expect(until(waiting)).resolves.toMatchObject({ status: "success", data: "from a" });

    dev.stopHeartbeats(false);
    expect(dev.heartbeatsStopped).toBe(false);
    const again = background(a!.refetch(req));
    await tick(1);
    await tick(2400);
    expect(beats()).toBeGreaterThan(beating!);
    expect(c.host.calls).toHaveLength(3);
    c.host.calls[2]!.respond(200, "again");
    await until(again);
  });
});
