/**
 * A story's one timeline lists a request's cause before the host's lines about it. Between tabs of
 * one browser the key's Web Lock decides and no window follows a claim: the request leaves before
 * the claim's write. The host told "host received … from A" at once, and "host answered A" from a
 * fast host, while "A claimed" came from A's panel once it next looked at the doc: merged as they
 * arrived, a reader saw the host answer a request nobody had made yet.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Awareness } from "y-protocols/awareness";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { createReplicas } from "../../stories/support/replicas.ts";
import { createSimulatedHost, type HostCall } from "../../stories/support/simulated-host.ts";

const REQ = { url: "https://host.example/api/report" };
const undo: (() => void)[] = [];
afterEach(() => undo.splice(0).forEach((f) => f()));

/** Tabs of one browser (Web Locks and a same-browser connector): a claim's request leaves before its write. */
function tabs(names: string[], behaviorFor?: (call: HostCall) => "hang" | undefined) {
  const world = createReplicas({
    names,
    host: createSimulatedHost({ delayMs: 0, ...(behaviorFor ? { behaviorFor } : {}) }),
    locks: new FakeLocks(),
    connect: (doc) => {
      const off = registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: false });
      const awareness = new Awareness(doc);
      return { awareness, destroy: () => (off(), awareness.destroy()) };
    },
  });
  undo.push(() => world.destroy());
  return world;
}

const inTimeOrder = (times: number[]) => expect(times).toEqual([...times].sort((x, y) => x - y));

describe("the stories' timeline: causal order", () => {
  it("tells a tab's claim before the host receives and answers its request (sent before the claim's write)", async () => {
    const world = tabs(["Replica A"]);
    await world.replicas[0]!.store.ensure(REQ);
    await expect.poll(() => world.narration.texts()).toContain("A wrote the result of /api/report (rev 1, 85 B)");
    expect(world.narration.texts()).toEqual([
      "A claimed /api/report (rev 1)",
      "host received GET /api/report from A",
      "host answered A",
      "A wrote the result of /api/report (rev 1, 85 B)",
    ]);
    // A line told before others keeps the time it happened: the times still read in order.
    inTimeOrder(world.narration.getSnapshot().entries.map((e) => e.at));
  });

  it("tells a takeover when a tab's lock is released before the host receives the new claimant's request", async () => {
    const world = tabs(["Replica A", "Replica B"], (call) => (call.from === "A" ? "hang" : undefined));
    const [a, b] = world.replicas as [(typeof world.replicas)[0], (typeof world.replicas)[0]];
    void a.store.ensure(REQ).catch(() => {});
    await world.host.whenCalls(1);
    const asked = b.store.ensure(REQ);
    await expect.poll(() => world.narration.texts()).toContain("B joined A's request for /api/report (rev 1): sent nothing");
    world.crash(a);
    await asked;
    await expect.poll(() => world.narration.texts()).toContain("B wrote the result of /api/report (rev 1, 85 B)");
    const texts = world.narration.texts();
    const took = texts.findIndex((t) => t.startsWith("B took over /api/report from A"));
    expect(took, texts.join("\n")).toBeGreaterThan(-1);
    expect(texts.slice(took + 1), texts.join("\n")).toEqual([
      "host received GET /api/report from B",
      "host answered B",
      "B wrote the result of /api/report (rev 1, 85 B)",
    ]);
    inTimeOrder(world.narration.getSnapshot().entries.map((e) => e.at));
  });
});
