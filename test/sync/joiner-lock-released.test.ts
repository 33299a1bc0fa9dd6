/**
 * Invariant 11 and invariant 3a: a claimant keeps a request another replica joined while that
 * joiner waits, and judges a joiner of its own browser gone when its lifetime Web Lock is
 * released (a crash, a frozen page), as it judges a claimant: at once, not after the joiner's
 * presence times out (30 s on the tabs' awareness), all that time holding a request nobody wants.
 * A joiner on another device keeps the presence rule. FakeLocks as the browser's lock manager,
 * linked awarenesses as the tabs' presence, the fake clock.
 */
import { removeAwarenessStates } from "y-protocols/awareness";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

/** A's request in flight for an ask it then drops, B waiting on it (A knows): the request goes on. */
async function joined(bBrowser: string) {
  const presence = linkedPresence(2);
  const [locksA, locksB] = [new FakeLocks(), new FakeLocks()];
  const sameBrowser = bBrowser === "browser-1";
  const c = cluster(0);
  const a = c.join({ locks: locksA.forTab("a"), browserId: "browser-1", awareness: presence.all[0] });
  const b = c.join({ locks: (sameBrowser ? locksA : locksB).forTab("b"), browserId: bBrowser, awareness: presence.all[1] });
  await tick();
  const asked = new AbortController();
  background(a.ensure(req, { signal: asked.signal }));
  await tick(100);
  expect(c.host.calls).toHaveLength(1);
  const waiting = background(b.ensure(req));
  await tick(100);
  expect(presence.all[0]!.getStates().get(presence.all[1]!.clientID)?.sharedFetch?.waits).toBeDefined();
  asked.abort();
  await tick(100);
  expect(c.host.calls[0]!.aborted).toBe(false);
  // B dies without a goodbye: its doc and presence go silent, and its browser frees its locks.
  const crashB = () => (c.crash(b), presence.cut(1), (sameBrowser ? locksA : locksB).crash("b"));
  return { c, a, b, waiting, crashB, presence };
}

describe("a joiner's crash is seen by its Web Lock (invariant 11, invariant 3a)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a joiner of the same browser crashes: the claimant aborts the request nobody waits for at once, not after 30 s", async () => {
    const { c, crashB } = await joined("browser-1");
    crashB();
    await tick(100);
    expect(c.host.calls[0]!.aborted).toBe(true);
    expect(c.host.calls).toHaveLength(1);
  });

  it("a joiner of the same browser that lives on keeps the request going, however long it takes (its lock stays held)", async () => {
    const { c, waiting } = await joined("browser-1");
    await tick(60_000);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([false]);
    c.host.calls[0]!.respond(200, "one");
    await expect(waiting).resolves.toMatchObject({ data: "one" });
    expect(c.host.calls).toHaveLength(1);
  });

  it("a joiner on another device keeps the presence rule: its request goes on until its presence times out", async () => {
    const { c, crashB, presence } = await joined("browser-2");
    crashB();
    await tick(20_000);
    expect(c.host.calls[0]!.aborted).toBe(false);
    // y-protocols' own check (its clock is the real Date.now, which the fake clock does not move).
    removeAwarenessStates(presence.all[0]!, [presence.all[1]!.clientID], "timeout");
    await tick(100);
    expect(c.host.calls[0]!.aborted).toBe(true);
  });
});
