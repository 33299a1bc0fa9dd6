/**
 * A story's one timeline, when two replicas claimed one key cut off from each other and the heal
 * kept one claim (the CRDT race: Yjs keeps the higher clientID's). The devtools timeline phrases
 * it from a panel's own store ("while this store still judged it live: the reason is not known
 * here"); told in a world of several replicas, "this store" named nobody a reader could find, and
 * the line was taken from the winner's panel, whose store never had the claim it lost. It is the
 * replaced claimant's to tell, naming it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { Network } from "../../sim/network.ts";
import { Narration } from "../../stories/support/narration.ts";
import { createSimulatedHost } from "../../stories/support/simulated-host.ts";
import { createWorldTimeline } from "../../stories/support/world-timeline.ts";

const REQ = { url: "https://host.example/api/report" };
const undo: (() => void)[] = [];
afterEach(() => undo.splice(0).forEach((f) => f()));

describe("the stories' timeline: a claim replaced with no reason known", () => {
  it("is told by the replica whose claim was replaced, by name (the CRDT race at a heal)", async () => {
    const net = new Network(2);
    const host = createSimulatedHost({ behavior: "hang" });
    const [docA, docB] = net.docs as [(typeof net.docs)[0], (typeof net.docs)[0]];
    const store = (doc: typeof docA, name: string) =>
      createSharedFetchStore({ doc, replicaId: `replica-${name.toLowerCase()}`, fetch: host.fetchAs(name) }) as SharedFetchStoreWithExtras;
    const a = store(docA, "A");
    const b = store(docB, "B");
    const n = new Narration();
    const world = createWorldTimeline(n);
    world.add("A", a);
    world.add("B", b);
    undo.push(() => {
      world.destroy();
      a.destroy();
      b.destroy();
      host.destroy();
      net.destroy();
    });
    net.isolate(docB);
    void a.ensure(REQ).catch(() => {});
    void b.ensure(REQ).catch(() => {});
    // Both claimed and sent, each unaware of the other.
    await host.whenCalls(2);
    net.heal();
    const [winner, loser] = docA.clientID > docB.clientID ? ["A", "B"] : ["B", "A"];
    const line = `${winner}'s claim replaced ${loser}'s on /api/report (rev 1) while ${loser} still judged it live: ${loser} cannot tell why (both claimed at once, or ${winner} judged it stale first)`;
    await expect.poll(() => n.texts()).toContain(line);
    expect(n.getSnapshot().entries.find((e) => e.text === line)?.replica).toBe(winner);
    expect(n.texts().filter((t) => t.includes("this store"))).toEqual([]);
  });
});
