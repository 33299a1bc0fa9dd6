import { afterEach, describe, expect, it, vi } from "vitest";
import { background, cluster, useFakeClock } from "../harness/replicas.ts";
import { advance, hosts, nodeHttpFetch, realUntil, realWaitFor } from "./helpers.ts";

/**
 * Real sockets, fake clock: the fake timers drive the lease clock (leases, heartbeats, re-checks)
 * only; the HTTP traffic to the module host is real and is awaited through the event loop.
 */
const LEASE = 10_000;
const servers = hosts();
afterEach(async () => {
  vi.useRealTimers();
  await servers.closeAll();
});

async function hungGraph() {
  const h = await servers.start({
    "/app/main.ts": `import "./dep.ts";\nimport "./ok.ts";\n`,
    "/app/ok.ts": `export {};\n`,
    "/app/dep.ts": `export {};\n`,
  });
  h.hang("/app/dep.ts");
  return h;
}

describe("a dependency host that never answers (invariants 1, 2, 8, 10, 11)", () => {
  it("stays pending, truthfully, in every replica for a whole day of clock; nobody takes over or duplicates", async () => {
    const h = await hungGraph();
    useFakeClock();
    const c = cluster(2, { fetch: nodeHttpFetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const pa = background(a!.ensureProgram(req));
    await realUntil(h.waitForRequest("/app/dep.ts"));
    const pb = background(b!.ensureProgram(req));
    let settled = false;
    Promise.race([pa, pb]).then(
      () => (settled = true),
      () => (settled = true),
    );

    await advance(24 * 3600_000, 60_000);
    expect(settled).toBe(false);
    expect(a!.programSnapshot(req)).toEqual({ status: "pending", claim: { replicaId: a!.replicaId, mine: true, stale: false } });
    // The heartbeat keeps a's claim alive in b's eyes: the bound measures silence, not duration.
    expect(b!.programSnapshot(req)).toEqual({ status: "pending", claim: { replicaId: a!.replicaId, mine: false, stale: false } });
    expect(h.count("/app/main.ts")).toBe(1);
    expect(h.count("/app/dep.ts")).toBe(1);
    expect(h.inFlight).toBe(1); // the hung socket is still open: nothing aborted it because time passed
    c.destroy();
    await realUntil(h.waitForClose("/app/dep.ts"));
  }, 60_000); // 1 440 steps of fake clock over real sockets: seconds of real time on a loaded machine

  it("with Node's own fetch too: pending across 29 leases (undici's own 300 s headers timeout is the client's, not ours)", async () => {
    const h = await hungGraph();
    useFakeClock();
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    background(a!.ensureProgram(req));
    await realUntil(h.waitForRequest("/app/dep.ts"));
    background(b!.ensureProgram(req));
    await advance(29 * LEASE);
    expect(b!.programSnapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: false } });
    expect(h.count("/app/dep.ts")).toBe(1);
    c.destroy();
    await realUntil(h.waitForClose("/app/dep.ts"));
  });

  it("aborting the last waiter's signal closes the hung connection (the server sees the socket close) and releases the claim", async () => {
    const h = await hungGraph();
    useFakeClock();
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const first = new AbortController();
    const second = new AbortController();
    const p1 = background(a!.ensureProgram(req, { signal: first.signal }));
    const p2 = background(a!.ensureProgram(req, { signal: second.signal }));
    await realUntil(h.waitForRequest("/app/dep.ts"));
    await advance(3 * LEASE);

    first.abort();
    await expect(p1).rejects.toMatchObject({ name: "AbortError" });
    await advance(100, 100);
    expect(h.inFlight).toBe(1); // another waiter here still wants it
    expect(b!.claims()).toHaveLength(1);

    second.abort(new DOMException("unmounted", "AbortError"));
    await expect(p2).rejects.toMatchObject({ name: "AbortError" });
    await realUntil(h.waitForClose("/app/dep.ts"));
    expect(b!.claims()).toHaveLength(0);
    expect(b!.programSnapshot(req)).toEqual({ status: "idle" });
    c.destroy();
  });

  it("destroy() closes the hung connection and rejects the waiters with AbortError", async () => {
    const h = await hungGraph();
    useFakeClock();
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const pa = background(a!.ensureProgram(req));
    await realUntil(h.waitForRequest("/app/dep.ts"));
    a!.destroy();
    await expect(pa).rejects.toMatchObject({ name: "AbortError" });
    await realUntil(h.waitForClose("/app/dep.ts"));
    expect(b!.claims()).toHaveLength(0);
    c.destroy();
  });

  it("the last listener leaving does not abort while a waiter remains; the waiter leaving does", async () => {
    const h = await hungGraph();
    useFakeClock();
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0 });
    const [a] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const off = a!.subscribeProgram(req, () => {});
    const controller = new AbortController();
    const pa = background(a!.ensureProgram(req, { signal: controller.signal }));
    await realUntil(h.waitForRequest("/app/dep.ts"));
    off();
    await advance(LEASE);
    expect(h.inFlight).toBe(1);
    controller.abort();
    await expect(pa).rejects.toMatchObject({ name: "AbortError" });
    await realWaitFor(() => h.inFlight === 0, "the socket to close");
    await realUntil(h.waitForClose("/app/dep.ts"));
    c.destroy();
  });
});
