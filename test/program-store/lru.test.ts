import { afterEach, describe, expect, it } from "vitest";
import { programBytes } from "../../src/core/program-lru.ts";
import { utf8Length } from "../../src/core/utf8.ts";
import type { SharedFetchStoreWithExtras, StoreEvent } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { hosts } from "./helpers.ts";
import { internalsOf } from "../../src/internals.ts";

const servers = hosts();
afterEach(() => servers.closeAll());

/** Programs /p1 … /pN, one file each, `size` bytes of source. */
async function programHost(n: number, size = 100) {
  const files: Record<string, string> = {};
  for (let i = 1; i <= n; i++) files[`/p${i}/main.ts`] = `// ${i}\n`.padEnd(size, "x");
  const h = await servers.start(files);
  return { h, req: (i: number) => ({ url: h.url(`/p${i}/main.ts`) }) };
}

/** Lets the deferred eviction (a microtask after the write) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function stored(store: SharedFetchStoreWithExtras, reqs: { url: string }[]): boolean[] {
  return reqs.map((r) => internalsOf(store).records.programs.get(store.programKeyOf(r)) !== undefined);
}

describe("stored programs are bounded, least recently used evicted first", () => {
  it("maxPrograms 2: resolving a third program evicts the least recently used, in every replica's doc", async () => {
    const { h, req } = await programHost(3);
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0, maxPrograms: 2 });
    const [a, b] = c.stores;
    const events: StoreEvent[] = [];
    a!.onEvent((e) => events.push(e));
    for (const i of [1, 2, 3]) expect((await a!.ensureProgram(req(i))).status).toBe("success");
    await settle();
    expect(stored(a!, [req(1), req(2), req(3)])).toEqual([false, true, true]);
    expect(stored(b!, [req(1), req(2), req(3)])).toEqual([false, true, true]);
    expect(events.filter((e) => e.type === "swept")).toEqual([{ type: "swept", keys: [a!.programKeyOf(req(1))] }]);
    // An evicted program is simply not recorded: asking again resolves it again.
    expect(a!.programSnapshot(req(1))).toEqual({ status: "idle" });
    expect((await a!.ensureProgram(req(1))).status).toBe("success");
    expect(h.count("/p1/main.ts")).toBe(2);
    c.destroy();
  });

  it("using a program (ensureProgram or programSnapshot) makes it the most recent", async () => {
    const { req } = await programHost(4);
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0, maxPrograms: 2 });
    const [a] = c.stores;
    await a!.ensureProgram(req(1));
    await a!.ensureProgram(req(2));
    expect(a!.programSnapshot(req(1)).status).toBe("success"); // p1 used again: p2 is now the oldest
    await a!.ensureProgram(req(3));
    await settle();
    expect(stored(a!, [req(1), req(2), req(3)])).toEqual([true, false, true]);
    await a!.ensureProgram(req(3));
    await a!.ensureProgram(req(1)); // p3 the oldest now
    await a!.ensureProgram(req(4));
    await settle();
    expect(stored(a!, [req(1), req(3), req(4)])).toEqual([true, false, true]);
    c.destroy();
  });

  it("returning to an earlier URL within the bound shows its stored program at once, with no request", async () => {
    const { h, req } = await programHost(2);
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0 });
    const [a] = c.stores;
    const first = await a!.ensureProgram(req(1));
    await a!.ensureProgram(req(2));
    expect(a!.programSnapshot(req(1))).toEqual(first); // synchronously, from the doc
    await expect(a!.ensureProgram(req(1))).resolves.toEqual(first);
    expect(h.requests).toEqual(["/p1/main.ts", "/p2/main.ts"]);
    c.destroy();
  });

  it("maxProgramBytes: evicts least recently used programs until the total fits", async () => {
    const { req } = await programHost(4, 1000);
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0, maxProgramBytes: 2500 });
    const [a] = c.stores;
    const one = await a!.ensureProgram(req(1));
    expect(programBytes(one.data!)).toBe("/p1/main.ts".length * 2 + 1000); // main + file name + contents
    await a!.ensureProgram(req(2));
    await settle();
    expect(stored(a!, [req(1), req(2)])).toEqual([true, true]);
    await a!.ensureProgram(req(3));
    await settle();
    expect(stored(a!, [req(1), req(2), req(3)])).toEqual([false, true, true]);
    c.destroy();
  });

  it("never evicts a program this replica shows or waits for, even the least recently used", async () => {
    const { req } = await programHost(3);
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0, maxPrograms: 2 });
    const [a] = c.stores;
    await a!.ensureProgram(req(1));
    const off = a!.subscribeProgram(req(1), () => {});
    await a!.ensureProgram(req(2));
    await a!.ensureProgram(req(3));
    await settle();
    expect(stored(a!, [req(1), req(2), req(3)])).toEqual([true, false, true]);
    off(); // letting go re-checks the bound: p1 is the least recently used now
    await a!.ensureProgram(req(2));
    await settle();
    expect(stored(a!, [req(1), req(2), req(3)])).toEqual([false, true, true]);
    c.destroy();
  });

  it("a replica evicts only programs it used itself, never another replica's", async () => {
    const { req } = await programHost(3);
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0, maxPrograms: 1 });
    const [a, b] = c.stores;
    await b!.ensureProgram(req(3));
    await a!.ensureProgram(req(1));
    await a!.ensureProgram(req(2));
    await settle();
    expect(stored(a!, [req(1), req(2), req(3)])).toEqual([false, true, true]);
    c.destroy();
  });

  it("a replica that shows an evicted program sees it re-resolved, not its memory of the old one (invariant 8)", async () => {
    const { h, req } = await programHost(2);
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0, maxPrograms: 1 });
    const [a, b] = c.stores;
    await a!.ensureProgram(req(1));
    await a!.refetchProgram(req(1));
    await a!.refetchProgram(req(1)); // revision 3
    const off = b!.subscribeProgram(req(1), () => {});
    await a!.ensureProgram(req(2));
    await settle(); // a evicts program 1 (b only shows it)
    h.set("/p1/main.ts", "// v2");
    const fresh = a!.ensureProgram(req(1)); // revision 1 again, in a fresh doc record
    await settle();
    expect(b!.programSnapshot(req(1)).status).toBe("pending");
    await fresh;
    await settle();
    expect(b!.programSnapshot(req(1)).data?.files[0]?.contents).toBe("// v2");
    off();
    c.destroy();
  });

  it("errors are stored outcomes too: counted, and evicted like programs", async () => {
    const { req, h } = await programHost(2);
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0, maxPrograms: 1 });
    const [a] = c.stores;
    const missing = { url: h.url("/missing/main.ts") };
    expect((await a!.ensureProgram(missing)).status).toBe("error");
    await a!.ensureProgram(req(1));
    await settle();
    expect(internalsOf(a!).records.errors.get(a!.programKeyOf(missing))).toBeUndefined();
    expect(stored(a!, [req(1)])).toEqual([true]);
    c.destroy();
  });

  it("bounds are checked options", () => {
    const c = cluster(0);
    expect(() => c.join({ maxPrograms: -1 })).toThrow(/maxPrograms must be a non-negative integer/);
    expect(() => c.join({ maxPrograms: 1.5 })).toThrow(/maxPrograms/);
    expect(() => c.join({ maxProgramBytes: Number.NaN })).toThrow(/maxProgramBytes must be a non-negative number/);
    c.destroy();
  });

  it("sizes count UTF-8 bytes", () => {
    expect(utf8Length("abc")).toBe(3);
    expect(utf8Length("é")).toBe(2);
    expect(utf8Length("€")).toBe(3);
    expect(utf8Length("😀")).toBe(4);
    expect(utf8Length("\ud800")).toBe(3);
    expect(programBytes({ main: "/m", files: [{ name: "/m", contents: "é" }], externals: ["react"], compiled: { "/m": "x" } })).toBe(
      2 + 2 + 2 + 5 + 2 + 1,
    );
  });
});
