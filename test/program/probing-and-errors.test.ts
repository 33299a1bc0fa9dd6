import { describe, expect, it } from "vitest";
import { PROBE_SUFFIXES, ProgramResolveError, resolveProgram } from "../../src/core/program/index.ts";
import { recordingFetch, servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

async function failure(promise: Promise<unknown>): Promise<ProgramResolveError> {
  const err = await promise.then(
    () => {
      throw new Error("expected the resolution to fail");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProgramResolveError);
  expect((err as Error).name).toBe("ProgramResolveError");
  return err as ProgramResolveError;
}

describe("resolveProgram: extension probing", () => {
  it("documents the probe order: .ts .tsx .js .jsx .mjs, then /index.*", () => {
    expect(PROBE_SUFFIXES).toEqual([
      ".ts",
      ".tsx",
      ".js",
      ".jsx",
      ".mjs",
      "/index.ts",
      "/index.tsx",
      "/index.js",
      "/index.jsx",
      "/index.mjs",
    ]);
  });

  it("probes in order and stops at the first 2xx (x.js beats x/index.ts)", async () => {
    const h = await serve({
      "/app/main.ts": `import { x } from "./x";`,
      "/app/x.js": `export const x = 1;`,
      "/app/x/index.ts": `export const x = 2;`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch, concurrency: 1 });
    expect(program.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/x.js"]);
    expect(h.requests).toEqual(["/app/main.ts", "/app/x.ts", "/app/x.tsx", "/app/x.js"]);
  });

  it("falls through every extension to the index files of a directory", async () => {
    const h = await serve({
      "/app/main.ts": `import "./dir"; import "./other/";`,
      "/app/dir/index.mjs": `export {};`,
      "/app/other/index.tsx": `export {};`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch, concurrency: 1 });
    expect(program.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/dir/index.mjs", "/app/other/index.tsx"]);
    expect(h.requests.filter((r) => r.startsWith("/app/dir"))).toEqual(PROBE_SUFFIXES.map((s) => `/app/dir${s}`));
    // A trailing slash names a directory: only its index files are tried.
    expect(h.requests.filter((r) => r.startsWith("/app/other"))).toEqual(["/app/other/index.ts", "/app/other/index.tsx"]);
  });

  it("probes names whose dot is not a known extension (./button.styles → button.styles.ts)", async () => {
    const h = await serve({
      "/app/main.ts": `import "./button.styles";`,
      "/app/button.styles.ts": `export {};`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(program.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/button.styles.ts"]);
  });

  it("requests a probe candidate once even when two importers probe the same specifier", async () => {
    const h = await serve({
      "/app/main.ts": `import "./a.ts"; import "./b.ts";`,
      "/app/a.ts": `import "./shared";`,
      "/app/b.ts": `import "./shared";`,
      "/app/shared.js": `export {};`,
    });
    await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(h.count("/app/shared.ts")).toBe(1);
    expect(h.count("/app/shared.tsx")).toBe(1);
    expect(h.count("/app/shared.js")).toBe(1);
  });
});

describe("resolveProgram: errors", () => {
  it("a 404 for an explicit path names the module and its importer", async () => {
    const h = await serve({ "/app/main.ts": `import "./ok.ts";`, "/app/ok.ts": `import "./missing.ts";` });
    const err = await failure(resolveProgram(h.url("/app/main.ts"), { fetch }));
    expect(err.message).toBe("module './missing.ts' imported by /app/ok.ts not found (HTTP 404 for /app/missing.ts)");
    expect(err).toMatchObject({ status: 404, importer: "/app/ok.ts", specifier: "./missing.ts", url: h.url("/app/missing.ts") });
  });

  it("an extensionless module missing under every probe names the module, its importer and what was tried", async () => {
    const h = await serve({ "/app/main.ts": `import "./x";` });
    const err = await failure(resolveProgram(h.url("/app/main.ts"), { fetch }));
    expect(err.message).toMatch(/^module '\.\/x' imported by \/app\/main\.ts not found \(tried \/app\/x\.ts, \/app\/x\.tsx, /);
    // A TypeScript importer's last resort: declaration files, which a type-only import may name.
    expect(err.message).toContain("/app/x/index.mjs, /app/x.d.ts, /app/x/index.d.ts)");
    expect(err.status).toBe(404);
  });

  it("a 404 for the entry says it is the entry", async () => {
    const h = await serve({});
    const err = await failure(resolveProgram(h.url("/app/nope.ts?v=1"), { fetch }));
    expect(err.message).toBe("entry module /app/nope.ts not found (HTTP 404)");
    expect(err.status).toBe(404);
  });

  it("a non-404 HTTP error fails with its status, also while probing", async () => {
    const h = await serve({
      "/app/main.ts": `import "./broken.ts";`,
      "/app/broken.ts": { status: 500, body: "boom" },
      "/app/probe.ts": { status: 503 },
      "/app/second.ts": `import "./probe";`,
    });
    const err = await failure(resolveProgram(h.url("/app/main.ts"), { fetch }));
    expect(err.message).toBe("module './broken.ts' imported by /app/main.ts failed: HTTP 500 for /app/broken.ts");
    expect(err.status).toBe(500);

    const probing = await failure(resolveProgram(h.url("/app/second.ts"), { fetch }));
    expect(probing.message).toBe("module './probe' imported by /app/second.ts failed: HTTP 503 for /app/probe.ts");
    expect(probing.status).toBe(503);
    expect(h.count("/app/probe.tsx")).toBe(0);

    const entry = await failure(resolveProgram(h.url("/app/broken.ts"), { fetch }));
    expect(entry.message).toBe("entry module /app/broken.ts failed: HTTP 500");
  });

  it("a 403 while probing is 'not this candidate', as bucket hosts answer a missing object; an explicit path's 403 fails", async () => {
    const forbidden = { status: 403, body: "AccessDenied" };
    const h = await serve({
      "/app/main.ts": `import { x } from "./x";`,
      "/app/x.ts": forbidden,
      "/app/x.tsx": forbidden,
      "/app/x.js": `export const x = 1;`,
      "/app/none.ts": `import "./gone";`,
      ...Object.fromEntries([...PROBE_SUFFIXES, ".d.ts", "/index.d.ts"].map((s) => [`/app/gone${s}`, forbidden])),
      "/app/explicit.ts": `import "./private.ts";`,
      "/app/private.ts": forbidden,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch, concurrency: 1 });
    expect(program.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/x.js"]);

    const none = await failure(resolveProgram(h.url("/app/none.ts"), { fetch }));
    expect(none.message).toMatch(/^module '\.\/gone' imported by \/app\/none\.ts not found \(tried \/app\/gone\.ts \(HTTP 403\), /);
    expect(none.status).toBe(403);

    const explicit = await failure(resolveProgram(h.url("/app/explicit.ts"), { fetch }));
    expect(explicit.message).toBe("module './private.ts' imported by /app/explicit.ts failed: HTTP 403 for /app/private.ts");
    expect(explicit.status).toBe(403);
  });

  it("refuses, before requesting it, a relative import that climbs above the entry's directory", async () => {
    const h = await serve({
      "/app/main.ts": `import "./ok.ts";\nimport { s } from "../secret.ts";`,
      "/app/ok.ts": `export {};`,
      "/secret.ts": `export const s = "secret";`,
    });
    const err = await failure(resolveProgram(h.url("/app/main.ts"), { fetch }));
    expect(err.message).toBe("/app/main.ts imports '../secret.ts', which climbs above the program root /app/");
    expect(err).toMatchObject({ importer: "/app/main.ts", specifier: "../secret.ts" });
    expect(h.count("/secret.ts")).toBe(0);
  });

  it("refuses a climb from a nested module (extensionless too) and allows ../ that stays inside the root", async () => {
    const h = await serve({
      "/app/main.ts": `import "./sub/inner.ts";`,
      "/app/sub/inner.ts": `import "../ok.ts";\nimport "../../etc/passwd";`,
      "/app/ok.ts": `export {};`,
      "/etc/passwd.ts": `export {};`,
    });
    const err = await failure(resolveProgram(h.url("/app/main.ts"), { fetch }));
    expect(err.message).toBe("/app/sub/inner.ts imports '../../etc/passwd', which climbs above the program root /app/");
    expect(h.requests.filter((r) => r.startsWith("/etc"))).toEqual([]);
  });

  it.each(["", "   ", "not a url", "/app/main.ts", "ftp://127.0.0.1/main.ts", "data:text/javascript,export{}"])(
    "rejects the invalid entry URL %j before any request",
    async (value) => {
      const { fetch: spy, calls } = recordingFetch();
      const err = await failure(resolveProgram(value, { fetch: spy }));
      expect(err.message).toContain(`invalid program entry URL ${JSON.stringify(value)}`);
      expect(calls).toEqual([]);
    },
  );

  it("rejects invalid limits before any request", async () => {
    const { fetch: spy, calls } = recordingFetch();
    const err = await failure(resolveProgram("http://127.0.0.1:9/main.ts", { fetch: spy, concurrency: 0 }));
    expect(err.message).toBe("invalid option concurrency: 0 (expected a positive integer)");
    expect(calls).toEqual([]);
  });

  it("reports a network failure as a ProgramResolveError naming the module", async () => {
    const h = await serve({ "/app/main.ts": `import "./a.ts";` });
    const failing: typeof fetch = (input, init) =>
      String(input).endsWith("/a.ts") ? Promise.reject(new TypeError("fetch failed")) : fetch(input, init);
    const err = await failure(resolveProgram(h.url("/app/main.ts"), { fetch: failing }));
    expect(err.message).toBe("could not fetch module /app/a.ts: network error (imported by /app/main.ts as './a.ts')");
    expect(err).toMatchObject({ importer: "/app/main.ts", specifier: "./a.ts" });
    expect(err.status).toBeUndefined();
  });
});
