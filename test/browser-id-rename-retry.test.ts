/**
 * Issue "one browser id per browser", with retries told in the claim: a claim renamed to the
 * agreed browser id keeps that id when its claimant rewrites it with a retried failure (claim.failed),
 * so the other tabs still watch its claimant's lock and take over at once when it crashes
 * (invariant 3a), rather than after a lease of silence.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { tanstackRetry } from "../src/core/retry.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import type { LockManagerLike } from "../src/core/locks.ts";

const req = { url: URL_A };

function storage(initial: Record<string, string>) {
  const items = new Map(Object.entries(initial));
  return { items, getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
}

/** A tab's locks whose browser-id agreement is granted only when the test says so. */
function slowAgreement(inner: LockManagerLike): { manager: LockManagerLike; grant: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    grant: open,
    manager: {
      request: (name, options, callback) =>
        name === "shared-fetch:browser-id"
          ? opened.then(() => inner.request(name, options, callback))
          : inner.request(name, options, callback),
    },
  };
}

describe("a renamed claim rewritten with a retried failure", () => {
  beforeEach(useFakeClock);
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("keeps the agreed browser id: a crash during the retries is still found by the lock", async () => {
    const ls = storage({ "shared-fetch:browser-id": "tentative-a" });
    vi.stubGlobal("localStorage", ls);
    const locks = new FakeLocks();
    const slow = slowAgreement(locks.forTab("a"));
    const c = cluster(0, { leaseMs: 5000 });
    const a = c.join({ locks: slow.manager });
    const b = c.join({ locks: locks.forTab("b"), browserId: "agreed-x" });
    await tick();
    const retry = tanstackRetry(3, 1000, (e) => new Error(e.message));
    background(a.ensure(req, { retry } as never));
    await tick(50);
    const waiting = b.ensure(req);
    await tick(50);

    ls.setItem("shared-fetch:browser-id:agreed", "agreed-x");
    slow.grant();
    await tick(0);
    expect(a.claims()[0]![1]).toMatchObject({ browserId: "agreed-x" });

    c.host.calls[0]!.respond(503, "busy"); // retried: the claim is rewritten with failed.n = 1
    await tick(0);
    expect(a.claims()[0]![1]).toMatchObject({ browserId: "agreed-x", failed: { n: 1 } });

    c.crash(a);
    locks.crash("a");
    await tick(30); // far below the lease
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "b");
    await expect(until(waiting)).resolves.toMatchObject({ data: "b" });
  });
});
