/**
 * Invariant 12 when a claimant lets go of a non-idempotent request it already sent: its claim is
 * released (the last waiter aborted, or the store was destroyed), and a replica that had joined
 * that revision sends it again. The first copy may have reached the host, so the second must
 * carry the same Idempotency-Key for the host to drop it; a call made after the release is new.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharedMutationFn } from "../src/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const post = { url: URL_A, method: "POST", body: '{"order":1}' };
const keysSent = (calls: { headers: Record<string, string> }[]) => calls.map((call) => call.headers["idempotency-key"]);

describe("invariant 12: a joined revision sent again after its claimant released it keeps its Idempotency-Key", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the claimant's only waiter aborts while another replica waits on it: the copy it sends carries the same key", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const ctl = new AbortController();
    background(a!.refetch(post, { signal: ctl.signal }));
    await tick(100);
    expect(c.host.calls).toHaveLength(1);
    const joined = b!.refetch(post);
    await tick(100);
    ctl.abort();
    await tick(100);
    expect(c.host.calls.map((call) => call.state)).toEqual(["aborted", "in-flight"]);
    const [first, again] = keysSent(c.host.calls);
    expect(first).toMatch(/\.1\./);
    expect(again).toBe(first);
    c.host.calls[1]!.respond(201, { id: 1 });
    await expect(until(joined)).resolves.toEqual({ status: "success", data: { id: 1 } });
  });

  it("the claimant's store is destroyed mid-request while another tab's identical mutation joined it: sent again under the same key", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const order = (n: number) => ({ ...post, body: JSON.stringify({ order: n }) });
    background(sharedMutationFn<number, unknown>(a!, order)(1));
    await tick(100);
    const joined = sharedMutationFn<number, unknown>(b!, order)(1);
    await tick(100);
    a!.destroy();
    await tick(100);
    expect(c.host.calls).toHaveLength(2);
    expect(new Set(keysSent(c.host.calls)).size).toBe(1);
    c.host.calls[1]!.respond(201, { id: 1 });
    await expect(until(joined)).resolves.toEqual({ id: 1 });
  });

  it("a call made only after the release joined nothing: it gets a key of its own", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const ctl = new AbortController();
    background(a!.refetch(post, { signal: ctl.signal }));
    await tick(100);
    ctl.abort();
    await tick(100);
    const later = b!.refetch(post);
    await tick(100);
    expect(c.host.calls).toHaveLength(2);
    const [first, second] = keysSent(c.host.calls);
    expect(second).toMatch(/\.1\./);
    expect(second).not.toBe(first);
    c.host.calls[1]!.respond(201, { id: 2 });
    await expect(until(later)).resolves.toEqual({ status: "success", data: { id: 2 } });
  });
});
