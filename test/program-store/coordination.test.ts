import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { programKey } from "../../src/core/key.ts";
import { validateProgramData } from "../../src/core/program-work.ts";
import { cluster } from "../harness/replicas.ts";
import { countsOf, GRAPH, GRAPH_PATHS, hosts } from "./helpers.ts";
import { internalsOf } from "../../src/internals.ts";

const servers = hosts();
afterEach(() => servers.closeAll());

describe("programs share one resolution across replicas (real HTTP module host, real timers)", () => {
  it("two replicas on synced docs resolve one program with each file requested exactly once in total", async () => {
    const h = await servers.start({ ...GRAPH });
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const [sa, sb] = await Promise.all([a!.ensureProgram(req), b!.ensureProgram(req)]);
    expect(sa.status).toBe("success");
    expect(sb).toEqual(sa);
    expect(sa.data!.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/a.ts", "/app/b.ts", "/app/lib/c.ts"]);
    expect(countsOf(h, GRAPH_PATHS)).toEqual({ "/app/main.ts": 1, "/app/a.ts": 1, "/app/b.ts": 1, "/app/lib/c.ts": 1 });
    expect(h.requests).toHaveLength(4);
    // Both replicas read the one record (the same revision), not a copy each.
    expect(internalsOf(a!).records.programs.get(a!.programKeyOf(req))).toMatchObject({ rev: 1 });
    expect(internalsOf(b!).records.programs.get(b!.programKeyOf(req))).toMatchObject({ rev: 1 });
    c.destroy();
  });

  it("claims that race before the docs sync: the settle window leaves one resolver (each file once)", async () => {
    const h = await servers.start({ ...GRAPH });
    // A window far wider than the 5 ms trip: on real timers a busy machine may run a timer late,
    // and a trip later than the window let both resolve (seen once with other work on both cores).
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 1000 });
    c.net.delayMs = 5; // both claim before either hears of the other
    const [a, b] = c.stores;
    const req = { url: h.url("/app/main.ts") };
    const events: string[] = [];
    a!.onEvent((e) => events.push(`a:${e.type}`));
    b!.onEvent((e) => events.push(`b:${e.type}`));
    const [sa, sb] = await Promise.all([a!.ensureProgram(req), b!.ensureProgram(req)]);
    expect(sa.status).toBe("success");
    expect(sb.data).toEqual(sa.data);
    expect(events.filter((e) => e.endsWith(":claimed"))).toHaveLength(2);
    expect(events.filter((e) => e.endsWith(":yielded"))).toHaveLength(1);
    expect(events.filter((e) => e.endsWith(":dispatched"))).toHaveLength(1);
    expect(countsOf(h, GRAPH_PATHS)).toEqual({ "/app/main.ts": 1, "/app/a.ts": 1, "/app/b.ts": 1, "/app/lib/c.ts": 1 });
    c.destroy();
  });

  it("compile flag: keyed apart from the plain program, its result carries `compiled`", async () => {
    const h = await servers.start({ ...GRAPH });
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const url = h.url("/app/main.ts");
    expect(a!.programKeyOf({ url, compile: true })).toBe(programKey("anonymous", url, true));
    expect(a!.programKeyOf({ url })).toBe(programKey("anonymous", url, false));
    expect(a!.programKeyOf({ url, compile: false })).toBe(a!.programKeyOf({ url }));

    const compiled = await a!.ensureProgram({ url, compile: true });
    expect(compiled.status).toBe("success");
    const data = compiled.data as { compiled?: Record<string, string> };
    expect(Object.keys(data.compiled!).sort()).toEqual(["/app/a.ts", "/app/b.ts", "/app/lib/c.ts", "/app/main.ts"]);
    expect(data.compiled!["/app/a.ts"]).not.toContain(": number");
    // The other replica sees it through the doc: the validator accepted `compiled`.
    expect(b!.programSnapshot({ url, compile: true })).toEqual(compiled);
    // The plain program is another key: still idle, and resolving it fetches again.
    expect(b!.programSnapshot({ url }).status).toBe("idle");
    const plain = await b!.ensureProgram({ url });
    expect(plain.data).not.toHaveProperty("compiled");
    expect(h.count("/app/main.ts")).toBe(2);
    c.destroy();
  });

  it("a fragment does not make another key (the resolver ignores it)", async () => {
    const h = await servers.start({ ...GRAPH });
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0 });
    const [a] = c.stores;
    expect(a!.programKeyOf({ url: h.url("/app/main.ts#x") })).toBe(a!.programKeyOf({ url: h.url("/app/main.ts") }));
    c.destroy();
  });

  it("invariant 14: a malformed `compiled` from a peer is ignored (idle, listed as malformed), never shown", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const url = "https://modules.example.test/app/main.ts";
    const key = a!.programKeyOf({ url, compile: true });
    const program = { main: "/app/main.ts", files: [{ name: "/app/main.ts", contents: "" }], externals: [] };
    c.docOf(a!).transact(() =>
      internalsOf(a!).records.programs.set(key, { rev: 1, data: { ...program, compiled: { "/app/main.ts": 42 } } }),
    );
    expect(b!.programSnapshot({ url, compile: true })).toEqual({ status: "idle" });
    expect(b!.malformed().map((m) => m.reason)).toContainEqual(expect.stringContaining("compiled is not a map of file names to strings"));
    expect(validateProgramData({ ...program, compiled: { "/app/main.ts": "x" } })).toBeNull();
    expect(validateProgramData({ ...program, compiled: ["x"] })).toMatch(/compiled/);
    expect(validateProgramData({ ...program, compiled: null })).toMatch(/compiled/);
    expect(validateProgramData(Object.assign(Object.create({ main: "/x" }), { files: [], externals: [] }))).not.toBeNull();
    c.destroy();
  });

  it("bad program input rejects at once and writes nothing (compile must be a boolean)", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const before = Y.encodeStateAsUpdate(c.docOf(a!)).byteLength;
    await expect(a!.ensureProgram({ url: "https://x.test/m.ts", compile: "yes" as unknown as boolean })).rejects.toThrow(
      /compile flag must be a boolean/,
    );
    await expect(a!.ensureProgram(null as unknown as { url: string })).rejects.toThrow(/program request must be/);
    await expect(a!.refetchProgram({ url: "" })).rejects.toThrow(/program url is empty/);
    expect(() => a!.programSnapshot({ url: "nope" })).toThrow(/not a valid absolute URL/);
    expect(Y.encodeStateAsUpdate(c.docOf(a!)).byteLength).toBe(before);
    expect(c.host.calls).toHaveLength(0);
    c.destroy();
  });
});
