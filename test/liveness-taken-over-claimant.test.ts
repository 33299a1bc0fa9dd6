/**
 * Liveness of a claim that took over another of its revision (invariant 3): the replaced claimant,
 * heard beating for the claim it lost, still runs that revision, so the work lives whatever the
 * taker's silence. Its beats for other work, and a replaced claim of another revision, vouch for
 * nothing (test/running-claim-taken-over-behind-hold.test.ts is the scenario across stores). A
 * replica that loads the doc after the takeover never saw the lost claim: the takeover names it
 * (`replaced`), read as absent when malformed, and a record of an older version, naming none, is
 * judged as before (test/takeover-seen-by-late-replica.test.ts across stores).
 */
import { describe, expect, it } from "vitest";
import { Liveness } from "../src/core/liveness.ts";
import { validateClaim, type ClaimRecord } from "../src/core/records.ts";

const LEASE = 300;

describe("liveness: a claim taken over while its former claimant still runs it", () => {
  const setup = (beatNonces: string[], { takerRev = 1, seenLost = true, replaced = undefined as unknown } = {}) => {
    let clock = 0;
    const at = (t: number) => (clock = t);
    const liveness = new Liveness(() => clock);
    const lost = { replicaId: "A", nonce: "a1", rev: 1, leaseMs: LEASE };
    const taker = validateClaim({ replicaId: "B", nonce: "b1", rev: takerRev, leaseMs: LEASE, takeover: true, replaced }) as ClaimRecord;
    if (seenLost) liveness.seeClaim("k", lost);
    liveness.seeClaim("k", taker);
    // A beats on; B, whose updates do not arrive here, is never heard.
    for (let n = 1, t = 100; t <= 3 * LEASE; n++, t += 100) {
      at(t);
      liveness.seeBeat("A", { n, nonces: beatNonces });
    }
    return liveness.verdict("k", taker, at(3 * LEASE));
  };

  it("the former claimant's beats naming the claim it lost keep the takeover of that revision alive", () => {
    expect(setup(["a1"])).toMatchObject({ stale: false, staleAt: 3 * LEASE + LEASE });
  });

  it("its beats for other work do not: the taker's silence makes the claim stale", () => {
    expect(setup(["other"])).toMatchObject({ stale: true, reason: "lease-silence" });
  });

  it("nor do they keep alive a claim of a newer revision written over the one it lost", () => {
    expect(setup(["a1"], { takerRev: 2 })).toMatchObject({ stale: true, reason: "lease-silence" });
  });

  describe("seen by a replica that loads the doc after the takeover (it never saw the lost claim)", () => {
    it("the takeover names the claim it replaced: the former claimant's beats for it keep the work alive", () => {
      expect(setup(["a1"], { seenLost: false, replaced: "a1" })).toMatchObject({ stale: false, staleAt: 3 * LEASE + LEASE });
    });

    it("beats that do not name the replaced claim vouch for nothing", () => {
      expect(setup(["other"], { seenLost: false, replaced: "a1" })).toMatchObject({ stale: true, reason: "lease-silence" });
    });

    it("a takeover of an older version, naming none, is judged as before: by the taker's own silence", () => {
      expect(setup(["a1"], { seenLost: false })).toMatchObject({ stale: true, reason: "lease-silence" });
    });

    for (const [what, replaced] of [
      ["a number", 42],
      ["an empty string", ""],
      ["an object", { nonce: "a1" }],
    ] as const)
      it(`a malformed \`replaced\` (${what}) is read as absent, the claim's other fields kept`, () => {
        const read = validateClaim({ replicaId: "B", nonce: "b1", rev: 1, leaseMs: LEASE, takeover: true, ik: "i", replaced });
        expect(read).toEqual({ replicaId: "B", nonce: "b1", rev: 1, leaseMs: LEASE, takeover: true, ik: "i" });
        expect(setup(["a1"], { seenLost: false, replaced })).toMatchObject({ stale: true, reason: "lease-silence" });
      });
  });
});
