/**
 * Public API contract: `ensure`, `refetch` and `ensureProgram` resolve once an outcome is recorded,
 * with that outcome settled (status "success" or "error"), as TanStack's fetchQuery resolves with
 * data: a direct store user reads the status it awaited. The key's own snapshot stays truthful
 * (invariant 8): pending while newer work runs or is wanted here. Before, a call resolved with the
 * key's snapshot as it stood, "pending" when a skipInFlight refetch on the same replica waited past
 * the recorded revision, or when another replica's newer claim stood.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const PROG = "https://modules.example.test/app/main.ts";

describe("a resolved ask's snapshot is settled", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  for (const ask of ["ensure", "refetch"] as const)
    it(`${ask} joined to another replica's claim, beside a skipInFlight refetch that waits past it: "success" with the joined result`, async () => {
      const c = cluster(2, { settleMs: 0 });
      const [a, b] = c.stores;
      const claimant = background(b!.ensure(R));
      await tick(10);
      expect(c.host.calls).toHaveLength(1);
      const joined = background(ask === "ensure" ? a!.ensure(R) : a!.refetch(R));
      const past = background(a!.refetch(R, { skipInFlight: true }));
      await tick(10);
      c.host.calls[0]!.respond(200, { n: 1 });
      await expect(until(joined, 10, 5_000)).resolves.toEqual({ status: "success", data: { n: 1 } });
      await expect(until(claimant, 10, 5_000)).resolves.toMatchObject({ status: "success", data: { n: 1 } });
      // The key is pending for its subscribers: the refetch past it still waits for its request.
      expect(a!.snapshot(R)).toMatchObject({ status: "pending", data: { n: 1 } });
      await tick(10);
      c.host.calls[1]!.respond(500, { n: "failed" });
      await expect(until(past, 10, 5_000)).resolves.toMatchObject({ status: "error", data: { n: 1 }, error: { status: 500 } });
    });

  it("ensure over a recorded result while another replica's refetch runs: resolves at once with that result, settled", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(a!.ensure(R));
    await tick(10);
    c.host.auto = undefined;
    background(b!.refetch(R));
    await tick(10);
    expect(c.host.calls).toHaveLength(2);
    expect(a!.snapshot(R)).toMatchObject({ status: "pending", claim: { mine: false } });
    await expect(a!.ensure(R)).resolves.toEqual({ status: "success", data: { n: 1 } });
  });

  it("ensureProgram over a recorded program while another replica re-resolves it: resolves with that program, settled", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, text: "export const v = 1;" });
    await until(a!.ensureProgram({ url: PROG }));
    await tick(10);
    c.host.auto = undefined;
    background(b!.refetchProgram({ url: PROG }));
    await tick(10);
    expect(a!.programSnapshot({ url: PROG }).status).toBe("pending");
    const snap = await a!.ensureProgram({ url: PROG });
    expect(snap.status).toBe("success");
    expect(snap.claim).toBeUndefined();
    expect(snap.data!.files[0]!.contents).toContain("v = 1");
  });
});
