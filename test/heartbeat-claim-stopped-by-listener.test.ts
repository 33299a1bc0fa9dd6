/**
 * Invariant 10 and "write nothing while idle": a claimant beats from its claim on. A listener of
 * the store's `claimed` event runs while the claim is being made; one that stops the claim there
 * (it aborts the call, or destroys the store) must stop its beat too, or the replica writes a
 * heartbeat every leaseMs/3 for ever with nothing in flight (a destroyed store included).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { internalsOf } from "../src/internals.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

describe("invariant 10: a claim stopped by a listener of its 'claimed' event leaves no heartbeat behind", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the call is aborted from the listener: nothing is in flight, no beat is ever written", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const ctl = new AbortController();
    a!.onEvent((e) => e.type === "claimed" && ctl.abort());
    await expect(a!.ensure(req, { signal: ctl.signal })).rejects.toMatchObject({ name: "AbortError" });
    await tick(60_000);
    expect(c.host.calls).toHaveLength(0);
    expect(internalsOf(a!).records.beats.get(a!.replicaId)).toBeUndefined();
  });

  it("the store is destroyed from the listener: it writes nothing afterwards and leaves no timer", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    a!.onEvent((e) => e.type === "claimed" && a!.destroy());
    background(a!.ensure(req));
    await tick(1);
    const writes: Uint8Array[] = [];
    c.docOf(a!).on("update", (u: Uint8Array) => writes.push(u));
    await tick(60_000);
    expect(writes).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
