/**
 * Invariant 11 with invariant 1's "one request": a tab that waits on another tab's request and is
 * frozen (a background tab the browser freezes, the back/forward cache) lets its Web Lock go, so
 * the claimant counts it no more; once it is back and still waits, the claimant must count it
 * again, or the claimant's own interest ending aborts a request the tab then sends a second time.
 * B alone has a page (its own window, so only its store sees the lifecycle events); FakeLocks as
 * the browser's lock manager, linked awarenesses as the tabs' presence, the fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };
const g = globalThis as { window?: EventTarget };

function pageEvent(type: string): Event {
  return Object.assign(new Event(type), { persisted: true });
}

/** A's request in flight for an ask A can drop, B (alone with a page) waiting on it, A told so. */
async function bJoinedA() {
  const presence = linkedPresence(2);
  const locks = new FakeLocks();
  const c = cluster(0);
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", awareness: presence.all[0] });
  const page = new EventTarget();
  g.window = page;
  const b = (() => {
    try {
      return c.join({ locks: locks.forTab("b"), browserId: "browser-1", awareness: presence.all[1] });
    } finally {
      delete g.window;
    }
  })();
  await tick();
  const asked = new AbortController();
  background(a.ensure(req, { signal: asked.signal }));
  await tick(100);
  const waiting = background(b.ensure(req));
  await tick(100);
  const bWaits = () => presence.all[0]!.getStates().get(presence.all[1]!.clientID)?.sharedFetch?.waits;
  expect(bWaits()).toBeDefined();
  return { c, page, asked, waiting, bWaits };
}

describe("a joiner back from a freeze is counted again (invariant 11, invariant 1)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("B waits on A's request, is frozen and comes back still waiting; A's ask ends: the request goes on and answers B, one request", async () => {
    const { c, page, asked, waiting, bWaits } = await bJoinedA();
    page.dispatchEvent(pageEvent("pagehide"));
    await tick(100);
    page.dispatchEvent(pageEvent("pageshow"));
    await tick(100);
    expect(bWaits()).toBeDefined();
    asked.abort();
    await tick(100);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([false]);
    c.host.calls[0]!.respond(200, "one");
    await expect(until(waiting)).resolves.toMatchObject({ data: "one" });
    expect(c.host.calls).toHaveLength(1);
  });

  it("A's ask ends while B is frozen: nobody waits, the request is aborted; B back sends it again (README: a joiner frozen meanwhile)", async () => {
    const { c, page, asked, waiting, bWaits } = await bJoinedA();
    page.dispatchEvent(pageEvent("pagehide"));
    await tick(100);
    expect(bWaits()).toBeUndefined();
    asked.abort();
    await tick(100);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([true]);
    page.dispatchEvent(pageEvent("pageshow"));
    await tick(100);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([true, false]);
    c.host.calls[1]!.respond(200, "again");
    await expect(until(waiting)).resolves.toMatchObject({ data: "again" });
  });
});
