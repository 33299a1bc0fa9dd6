/**
 * Invariant 4 (never through "no claim": no observer may see pending: false with no result while
 * someone works on the key), at the end of a settle window. a and b, cut off from each other,
 * claim revision 1; healed, the doc keeps b's claim (the contest's winner) and deletes a's; b's
 * caller withdraws, so b lets its claim go. a's window then ended with no claim standing at all,
 * and a sent its request unseen: b showed the key idle while a worked on it, and would have sent
 * the request again on its next ask. Now a, finding its claim gone, steps back and claims again
 * before it sends. Found by test/chaos-replicas.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

describe("invariant 4: a request is sent only under a claim that stands", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a settled attempt whose claim a contest removed and its winner let go claims again before it sends", async () => {
    const net = new Network(0);
    const host = new Host();
    const store = (clientID: number, name: string) => {
      const doc = new Y.Doc();
      doc.clientID = clientID; // b's claim wins the contest
      net.add(doc);
      return {
        doc,
        store: createSharedFetchStore({ doc, replicaId: name, fetch: host.fetchAs(name), leaseMs: 300, settleMs: 20, locks: null }),
      };
    };
    const { store: a } = store(1, "a");
    const { store: b, doc: docB } = store(2, "b");
    net.isolate(docB);
    const withdrawn = new AbortController();
    background(b.ensure(req, { signal: withdrawn.signal }));
    background(a.ensure(req));
    await tick();
    net.heal();
    await tick();
    expect(a.claims().map(([, c]) => c.replicaId)).toEqual(["b"]);
    withdrawn.abort();
    await tick();
    expect(b.claims()).toEqual([]);
    await tick(20);
    // Whenever a's request is out, its claim stands and b shows the key pending.
    const sent = () => host.calls.filter((c) => c.from === "a").length;
    for (let ms = 0; ms < 100; ms += 5) {
      if (sent()) {
        expect(b.claims().map(([, c]) => c.replicaId)).toEqual(["a"]);
        expect(b.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: "a" } });
      }
      await tick(5);
    }
    expect(sent()).toBe(1);
    host.calls.at(-1)!.respond(200, { ok: true });
    await tick();
    for (const s of [a, b]) expect(s.snapshot(req)).toEqual({ status: "success", data: { ok: true } });
    a.destroy();
    b.destroy();
  });
});
