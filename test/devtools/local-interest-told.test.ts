/**
 * The inspector contract (`onInspect`: "called after any change the inspector would show") for
 * this replica's own interest in a key. A tab that joins another tab's request changes
 * `inspect().keys[].local` — it now waits (the devtools enable the key's refetch, the timeline
 * says it waits) — though nothing in the doc changed: the panel and the Storybook timeline were
 * told only at the next doc change (A's result, or a route change), so they showed the joiner as
 * not asking for the key while it waited. Same for a subscription, and for both going away.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

/** A's request in flight (the host does not answer); B has A's claim in its doc, asks nothing. */
async function aClaims() {
  const c = cluster(0, { settleMs: 0, locks: null });
  const [a, b] = [c.join(), c.join()];
  background(a.ensure(req));
  await tick(100);
  expect(c.host.calls).toHaveLength(1);
  expect(b.inspect().keys.map((k) => [k.claim?.replicaId, k.local])).toEqual([[a.replicaId, undefined]]);
  let told = 0;
  b.onInspect(() => told++);
  // Nothing changes now: whatever is told below was told for B's own change.
  await tick(0);
  told = 0;
  return { b, told: () => told, reset: () => (told = 0) };
}

describe("onInspect tells this replica's own interest in a key (devtools, timeline)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a replica that starts waiting on another replica's claim tells its inspector, and again when it stops", async () => {
    const { b, told, reset } = await aClaims();
    const asked = new AbortController();
    background(b.ensure(req, { signal: asked.signal }));
    await tick(0);
    expect(b.inspect().keys[0]?.local).toMatchObject({ waiters: 1 });
    expect(told()).toBeGreaterThan(0);
    reset();
    asked.abort();
    await tick(0);
    expect(b.inspect().keys[0]?.local).toBeUndefined();
    expect(told()).toBeGreaterThan(0);
  });

  it("a subscription to a key another replica claimed tells the inspector, and so does its end", async () => {
    const { b, told, reset } = await aClaims();
    const off = b.subscribe(req, () => {});
    await tick(0);
    expect(b.inspect().keys[0]?.local).toMatchObject({ listeners: 1 });
    expect(told()).toBeGreaterThan(0);
    reset();
    off();
    await tick(0);
    expect(b.inspect().keys[0]?.local).toBeUndefined();
    expect(told()).toBeGreaterThan(0);
  });
});
