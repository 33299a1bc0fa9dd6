import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import type { Snapshot } from "../../src/index.ts";
import { background, cluster, useFakeClock } from "../harness/replicas.ts";
import { advance, hosts, realUntil, realWaitFor, turn } from "./helpers.ts";

/** The seed note's claim cases, for program resolution (lease 10 s), against a real module host. */
const LEASE = 10_000;
const servers = hosts();
afterEach(async () => {
  vi.useRealTimers();
  await servers.closeAll();
});

describe("the seed's cases for programs", () => {
  it("release on stop: an aborted resolution hands its claim back and closes its connection", async () => {
    const h = await servers.start({ "/app/main.ts": `import "./dep.ts";` });
    h.hang("/app/dep.ts");
    useFakeClock();
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const controller = new AbortController();
    const pa = background(a!.ensureProgram(req, { signal: controller.signal }));
    await realUntil(h.waitForRequest("/app/dep.ts"));
    expect(b!.claims()).toHaveLength(1);
    expect(b!.claims()[0]![1]).toMatchObject({ replicaId: a!.replicaId, rev: 1, leaseMs: LEASE, label: `PROGRAM ${h.origin}/app/main.ts` });
    controller.abort();
    await expect(pa).rejects.toMatchObject({ name: "AbortError" });
    expect(b!.claims()).toHaveLength(0);
    expect(b!.programSnapshot(req)).toEqual({ status: "idle" });
    await realUntil(h.waitForClose("/app/dep.ts"));
    c.destroy();
  });

  it("failure surfaced: a 404 resolves ensureProgram with an error naming the module and its importer, in every replica", async () => {
    const h = await servers.start({ "/app/main.ts": `import "./lib/util.ts";`, "/app/lib/util.ts": `import { x } from "./missing.ts";` });
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const snap = await a!.ensureProgram(req);
    const message = "module './missing.ts' imported by /app/lib/util.ts not found (HTTP 404 for /app/lib/missing.ts)";
    expect(snap).toEqual({ status: "error", error: { message, status: 404 } });
    expect(b!.programSnapshot(req)).toEqual(snap);
    await expect(b!.ensureProgram(req)).resolves.toEqual(snap); // recorded: no second walk
    expect(h.count("/app/main.ts")).toBe(1);
    c.destroy();
  });

  it("a network failure is an error that says why (the socket's own reason)", async () => {
    const h = await servers.start({});
    const url = h.url("/app/main.ts");
    await h.close(); // nothing listens there any more
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0 });
    const snap = await c.stores[0]!.ensureProgram({ url });
    expect(snap.status).toBe("error");
    expect(snap.error!.message).toMatch(/^could not fetch module \/app\/main\.ts: network error \(connection refused\)$/);
    c.destroy();
  });

  it("empty URL: rejected at once with a clear message, nothing written, nothing requested", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const doc = c.docOf(a!);
    const before = Y.encodeStateAsUpdate(doc).byteLength;
    await expect(a!.ensureProgram({ url: "" })).rejects.toThrow(/program url is empty/);
    await expect(a!.ensureProgram({ url: "   " })).rejects.toThrow(/program url is empty/);
    await expect(a!.ensureProgram({ url: "not a url" })).rejects.toThrow(/program url "not a url" is not a valid absolute URL/);
    await expect(a!.ensureProgram({ url: "ftp://x/y.ts" })).rejects.toThrow(/protocol ftp:/);
    await expect(a!.refetchProgram({ url: "" })).rejects.toThrow(/program url is empty/);
    await expect(a!.ensureProgram({ url: "" })).rejects.toMatchObject({ name: "SharedFetchInputError" });
    expect(Y.encodeStateAsUpdate(doc).byteLength).toBe(before);
    expect(a!.claims()).toEqual([]);
    expect(c.host.calls).toHaveLength(0);
    c.destroy();
  });

  it("slow resolution outliving the bound is still published, and never duplicated by a waiting replica", async () => {
    const h = await servers.start({ "/app/main.ts": `import "./slow.ts";`, "/app/slow.ts": `export const slow = true;` });
    h.hold("/app/slow.ts");
    useFakeClock();
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const pa = a!.ensureProgram(req);
    await realUntil(h.waitForHeld(1));
    const pb = b!.ensureProgram(req);
    await advance(4 * LEASE);
    expect(b!.programSnapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: false } });
    h.release("/app/slow.ts");
    const sa = await realUntil(pa);
    expect(sa.status).toBe("success");
    expect(sa.data!.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/slow.ts"]);
    await expect(realUntil(pb)).resolves.toEqual(sa);
    expect(h.count("/app/main.ts")).toBe(1);
    expect(h.count("/app/slow.ts")).toBe(1);
    c.destroy();
  });

  it("stale foreign claim taken over straight from the old claim: a third replica's subscription never sees idle", async () => {
    const h = await servers.start({ "/app/main.ts": `import "./dep.ts";`, "/app/dep.ts": `export {};` });
    let depRequests = 0;
    h.hang((path) => path === "/app/dep.ts" && depRequests++ === 0); // only the first claimant's request hangs
    useFakeClock();
    const c = cluster(3, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b, watcher] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const seen: Snapshot[] = [];
    const off = watcher!.subscribeProgram(req, () => seen.push(watcher!.programSnapshot(req)));

    background(a!.ensureProgram(req));
    await realUntil(h.waitForRequest("/app/dep.ts"));
    c.crash(a!); // no release, no heartbeat any more
    const pb = b!.ensureProgram(req);
    await advance(LEASE - 1000);
    expect(b!.programSnapshot(req).claim).toMatchObject({ replicaId: a!.replicaId, stale: false }); // young claim left alone
    await advance(2000);
    await realWaitFor(() => h.count("/app/dep.ts") === 2, "the takeover to request dep");
    // One takeover, at the old claim's revision. Whoever waits for the key or shows it may finish
    // abandoned work: b (waiting) or the watcher (showing), whichever re-checked first.
    const claims = b!.claims();
    expect(claims).toEqual([[b!.programKeyOf(req), expect.objectContaining({ rev: 1 })]]);
    const taker = claims[0]![1].replicaId;
    expect([b!.replicaId, watcher!.replicaId]).toContain(taker);
    const snap = await realUntil(pb);
    expect(snap.status).toBe("success");
    await turn();
    expect(h.count("/app/main.ts")).toBe(2);
    expect(h.count("/app/dep.ts")).toBe(2);

    const name = (id: string) => (id === a!.replicaId ? "a" : id === taker ? "taker" : "other");
    const states = seen.map((s) => `${s.status}:${s.claim ? `${name(s.claim.replicaId)}${s.claim.stale ? "(stale)" : ""}` : "-"}`);
    expect(states.filter((s, i) => i === 0 || s !== states[i - 1])).toEqual([
      "pending:a",
      "pending:a(stale)",
      "pending:taker",
      "success:-",
    ]);
    expect(seen.some((s) => s.status === "idle")).toBe(false);
    off();
    c.destroy();
  });

  it("results survive failed duplicates: a partitioned replica's failure never erases the result", async () => {
    const h = await servers.start({ "/app/main.ts": `import "./dep.ts";`, "/app/dep.ts": `export const ok = 1;` });
    h.hold("/app/dep.ts");
    useFakeClock();
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const pa = a!.ensureProgram(req);
    await realUntil(h.waitForHeld(1));
    c.net.isolate(c.docOf(b!)); // b hears nothing from a: no heartbeat, so a's claim goes stale for b
    const pb = b!.ensureProgram(req);
    await advance(LEASE + 1000);
    await realUntil(h.waitForHeld(2)); // b took over and sent the same requests

    h.release("/app/dep.ts"); // a's copy comes home first
    await expect(realUntil(pa)).resolves.toMatchObject({ status: "success" });
    h.set("/app/dep.ts", { status: 500, body: "boom" });
    h.release("/app/dep.ts"); // b's duplicate fails
    await expect(realUntil(pb)).resolves.toMatchObject({ status: "error", error: { status: 500 } });

    c.net.heal();
    await turn();
    const expected = {
      status: "success",
      data: expect.objectContaining({ files: [expect.anything(), { name: "/app/dep.ts", contents: "export const ok = 1;" }] }),
    };
    expect(a!.programSnapshot(req)).toEqual(expected);
    expect(b!.programSnapshot(req)).toEqual(expected);
    c.destroy();
  });
});
