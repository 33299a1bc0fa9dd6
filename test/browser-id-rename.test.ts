/**
 * Issue "time to data", "one browser id per browser": a first claim does not wait for the browser
 * id agreement (its lock round trips would delay every first request of a first visit). A claim
 * made under the tentative id is renamed once the tab adopts the agreed one, so the other tabs
 * watch its claimant's lock and take over at once when it crashes (invariant 3a); a claimant that
 * rewrites it with a retried failure (retries told in the claim) keeps the agreed id.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import type { LockManagerLike } from "../src/core/locks.ts";
import { tanstackRetry } from "../src/core/retry.ts";

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

describe("claims before the browser id agreement", () => {
  beforeEach(useFakeClock);
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("are made at once under the tentative id, then renamed to the agreed one: a crash is found by the lock", async () => {
    const ls = storage({ "shared-fetch:browser-id": "tentative-a" });
    vi.stubGlobal("localStorage", ls);
    const locks = new FakeLocks();
    const slow = slowAgreement(locks.forTab("a"));
    const c = cluster(0);
    const a = c.join({ locks: slow.manager }); // its own id: from localStorage, agreed later
    const b = c.join({ locks: locks.forTab("b"), browserId: "agreed-x" });
    await tick();
    background(a.ensure(req));
    await tick(50);
    expect(c.host.calls).toHaveLength(1); // no wait for the agreement
    expect(a.claims()[0]![1]).toMatchObject({ replicaId: a.replicaId, browserId: "tentative-a" });
    const waiting = b.ensure(req);
    await tick(50);

    ls.setItem("shared-fetch:browser-id:agreed", "agreed-x"); // another tab settled the id first
    slow.grant();
    await tick(0);
    expect(a.claims()[0]![1]).toMatchObject({ replicaId: a.replicaId, browserId: "agreed-x" });

    c.crash(a);
    locks.crash("a");
    await tick(30); // the settle window only: far below the lease
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "b");
    await expect(until(waiting)).resolves.toMatchObject({ data: "b" });
  });

  it("a renamed claim rewritten with a retried failure (claim.failed) keeps the agreed id: a crash during the retries is still found by the lock", async () => {
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
