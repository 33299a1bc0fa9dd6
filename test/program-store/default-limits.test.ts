/**
 * The defaults for a program, as an app gets them through `store.ensureProgram` (the store
 * takes no resolver limits): 6 requests in parallel, like a browser's per-host bound; 500 modules;
 * 1 MiB per file; 10 MiB in total. Each limit ends as a recorded error that names it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cluster } from "../harness/replicas.ts";
import { recordingFetch } from "../program/module-host.ts";
import { hosts } from "./helpers.ts";

const servers = hosts();
afterEach(() => servers.closeAll());

const MiB = 1024 * 1024;
const padded = (bytes: number) => `export default "${"x".repeat(bytes - 18)}";`;

describe("ensureProgram's default bounds (real HTTP module host)", () => {
  it("keeps at most 6 module requests in flight at the host (the default bound), each module once", async () => {
    const leaves = Array.from({ length: 14 }, (_, i) => `/app/leaf${i}.ts`);
    const h = await servers.start({
      "/app/main.ts": leaves.map((p) => `import ".${p.slice(4)}";`).join("\n"),
      ...Object.fromEntries(leaves.map((p) => [p, `export {};`])),
    });
    h.hold((path) => path.startsWith("/app/leaf"));
    const { fetch: counted, calls } = recordingFetch();
    const c = cluster(1, { fetch: counted, settleMs: 0 });
    const resolving = c.stores[0]!.ensureProgram({ url: h.url("/app/main.ts") });
    for (const batch of [6, 6, 2]) {
      await h.waitForHeld(batch);
      // Every fetch the resolver has started is at the host and held: nothing else is on its way.
      expect(calls).toHaveLength(h.requests.length);
      expect(h.held).toHaveLength(batch);
      h.releaseAll();
    }
    const snap = await resolving;
    expect(snap.status).toBe("success");
    expect(snap.data!.files).toHaveLength(15);
    expect(h.maxInFlight).toBe(6);
    for (const leaf of leaves) expect(h.count(leaf)).toBe(1);
  });

  it("a program of more than 500 modules ends as an error naming the limit", async () => {
    const leaves = Array.from({ length: 500 }, (_, i) => `/app/m${String(i).padStart(3, "0")}.js`);
    const h = await servers.start({
      "/app/main.js": leaves.map((p) => `import ".${p.slice(4)}";`).join("\n"),
      ...Object.fromEntries(leaves.map((p) => [p, `export {};`])),
    });
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0 });
    const snap = await c.stores[0]!.ensureProgram({ url: h.url("/app/main.js") });
    expect(snap.status).toBe("error");
    expect(snap.error!.message).toMatch(/^program has more than 500 modules \(limit reached at \/app\/m\d{3}\.js\)$/);
    // One module fewer resolves.
    h.set(
      "/app/main.js",
      leaves
        .slice(1)
        .map((p) => `import ".${p.slice(4)}";`)
        .join("\n"),
    );
    const fewer = await c.stores[0]!.ensureProgram({ url: h.url("/app/main.js?fewer") });
    expect(fewer.status).toBe("success");
    expect(fewer.data!.files).toHaveLength(500);
  });

  it("a file over 1 MiB ends as an error naming the module, the limit and its importer; 1 MiB exactly is taken", async () => {
    const h = await servers.start({
      "/app/main.ts": `import "./fits.ts";\nimport "./big.ts";`,
      "/app/fits.ts": padded(MiB),
      "/app/big.ts": padded(MiB + 1),
    });
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0 });
    const snap = await c.stores[0]!.ensureProgram({ url: h.url("/app/main.ts") });
    expect(snap.error).toEqual({
      message: `module /app/big.ts is larger than the limit of ${MiB} bytes per file (imported by /app/main.ts as './big.ts')`,
    });
    h.set("/app/main.ts", `import "./fits.ts";`);
    const fits = await c.stores[0]!.ensureProgram({ url: h.url("/app/main.ts?fits") });
    expect(fits.status).toBe("success");
  });

  it("a program over 10 MiB in total ends as an error naming the limit", async () => {
    const parts = Array.from({ length: 11 }, (_, i) => `/app/part${String(i).padStart(2, "0")}.js`);
    const h = await servers.start({
      "/app/main.js": parts.map((p) => `import ".${p.slice(4)}";`).join("\n"),
      ...Object.fromEntries(parts.map((p) => [p, padded(MiB - 1000)])),
    });
    const c = cluster(1, { fetch: globalThis.fetch, settleMs: 0 });
    const snap = await c.stores[0]!.ensureProgram({ url: h.url("/app/main.js") });
    expect(snap.status).toBe("error");
    expect(snap.error!.message).toMatch(
      new RegExp(`^program is larger than the limit of ${10 * MiB} bytes in total \\(reached at /app/part\\d\\d\\.js\\)`),
    );
  });
});
