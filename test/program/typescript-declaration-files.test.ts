/**
 * The resolver follows type-only imports, and TypeScript lets one name a declaration file:
 * `import type { paths } from "./api/schema"` for schema.d.ts (openapi-typescript's output), or
 * `"./env.js"` for env.d.ts under node16/bundler resolution. A TypeScript importer finds them as
 * TypeScript does, last, so that nothing found before costs a request more.
 */
import { expect, it } from "vitest";
import { resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

it("a TypeScript module's type-only import of './api/schema' or './env.js' finds schema.d.ts and env.d.ts", async () => {
  const h = await serve({
    "/app/main.ts": `import type { paths } from "./api/schema";\nimport type { Env } from "./env.js";\nimport type { M } from "./m.mjs";\nexport let x: paths | Env | M;`,
    "/app/api/schema.d.ts": `export interface paths { "/items": {} }`,
    "/app/env.d.ts": `export type Env = {};`,
    "/app/m.d.mts": `export type M = {};`,
  });
  const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
  expect(program.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/api/schema.d.ts", "/app/env.d.ts", "/app/m.d.mts"]);
  // Every runtime module's name is tried first.
  expect(h.requests.filter((r) => r.startsWith("/app/api/"))).toEqual([
    "/app/api/schema.ts",
    "/app/api/schema.tsx",
    "/app/api/schema.js",
    "/app/api/schema.jsx",
    "/app/api/schema.mjs",
    "/app/api/schema/index.ts",
    "/app/api/schema/index.tsx",
    "/app/api/schema/index.js",
    "/app/api/schema/index.jsx",
    "/app/api/schema/index.mjs",
    "/app/api/schema.d.ts",
  ]);
});

it("a directory's index.d.ts is found too; a module found earlier costs no declaration request", async () => {
  const h = await serve({
    "/app/main.tsx": `import type { A } from "./types/";\nimport { b } from "./b";`,
    "/app/types/index.d.ts": `export type A = 1;`,
    "/app/b.js": `export const b = 1;`,
    "/app/b.d.ts": `export declare const b: number;`,
  });
  const program = await resolveProgram(h.url("/app/main.tsx"), { fetch });
  expect(program.files.map((f) => f.name)).toEqual(["/app/main.tsx", "/app/b.js", "/app/types/index.d.ts"]);
  expect(h.count("/app/b.d.ts")).toBe(0);
});

it("a JavaScript module's import never resolves to a declaration file (its runtime could not load one)", async () => {
  const h = await serve({ "/app/main.js": `import { x } from "./x";`, "/app/x.d.ts": `export declare const x: number;` });
  const err = await resolveProgram(h.url("/app/main.js"), { fetch }).catch((e: unknown) => e);
  expect((err as Error).message).toMatch(/^module '\.\/x' imported by \/app\/main\.js not found \(tried .*\/app\/x\/index\.mjs\)$/);
  expect(h.count("/app/x.d.ts")).toBe(0);
});
