/**
 * TypeScript under node16, nodenext and bundler resolution has a module name its sibling by the
 * JavaScript it compiles to: `import { y } from "./y.js"` for y.ts. Served as sources, only y.ts
 * exists; TypeScript, Vite and esbuild all find it. The resolver does too, after the name as written.
 */
import { expect, it } from "vitest";
import { ProgramResolveError, resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

it("a TypeScript module's './y.js' is y.ts (.jsx → .tsx, .mjs → .mts, .cjs → .cts; .js → .tsx too)", async () => {
  const h = await serve({
    "/app/main.ts": `import { y } from "./y.js";\nimport { V } from "./view.js";\nimport "./m.mjs";\nimport "./c.cjs";`,
    "/app/y.ts": `export const y: number = 1;`,
    "/app/view.tsx": `import { B } from "./b.jsx";\nexport const V = () => <B />;`,
    "/app/b.tsx": `export const B = () => <b />;`,
    "/app/m.mts": `export {};`,
    "/app/c.cts": `export {};`,
  });
  const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
  expect(program.files.map((f) => f.name)).toEqual([
    "/app/main.ts",
    "/app/b.tsx",
    "/app/c.cts",
    "/app/m.mts",
    "/app/view.tsx",
    "/app/y.ts",
  ]);
  // As written first, then the sources in order: one request each, nothing else.
  expect(h.requests.filter((r) => r.startsWith("/app/view"))).toEqual(["/app/view.js", "/app/view.ts", "/app/view.tsx"]);
});

it("the JavaScript file as written wins when it is there; a JavaScript importer's './y.js' is never a .ts", async () => {
  const h = await serve({
    "/app/main.ts": `import "./built.js";\nimport "./plain.js";`,
    "/app/built.js": `export {};`,
    "/app/built.ts": `export {};`,
    "/app/plain.js": `import "./y.js";`,
    "/app/y.ts": `export {};`,
  });
  const err = await resolveProgram(h.url("/app/main.ts"), { fetch }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProgramResolveError);
  expect((err as Error).message).toBe("module './y.js' imported by /app/plain.js not found (HTTP 404 for /app/y.js)");
  expect(h.count("/app/built.ts")).toBe(0);
  expect(h.count("/app/y.ts")).toBe(0);
});

it("missing under every name, the error lists what was tried", async () => {
  const h = await serve({ "/app/main.tsx": `import "./gone.js";` });
  const err = await resolveProgram(h.url("/app/main.tsx"), { fetch }).catch((e: unknown) => e);
  expect((err as Error).message).toBe(
    "module './gone.js' imported by /app/main.tsx not found (tried /app/gone.js, /app/gone.ts, /app/gone.tsx, /app/gone.d.ts)",
  );
  expect((err as ProgramResolveError).status).toBe(404);
});

it("a JavaScript importer's './y.js' is never a .ts, even when a TypeScript importer of the same name was located first", async () => {
  const h = await serve({
    "/app/main.ts": `import "./plain.js";\nimport "./typed.ts";`,
    "/app/plain.js": `import "./y.js";`,
    "/app/typed.ts": `import "./y.js";`,
    "/app/y.ts": `export {};`,
  });
  // typed.ts is read first: its './y.js' finds y.ts before plain.js asks for the same name.
  h.hold("/app/plain.js");
  const resolving = resolveProgram(h.url("/app/main.ts"), { fetch }).catch((e: unknown) => e);
  await h.waitForRequest("/app/y.ts");
  h.releaseAll();
  const err = await resolving;
  expect(err).toBeInstanceOf(ProgramResolveError);
  expect((err as Error).message).toBe("module './y.js' imported by /app/plain.js not found (HTTP 404 for /app/y.js)");
  // The name both importers wrote was still requested once.
  expect(h.count("/app/y.js")).toBe(1);
});

it("a JavaScript importer's './schema' never finds schema.d.ts, whichever importer asked first", async () => {
  const files = {
    "/app/main.ts": `import "./plain.js";\nimport "./typed.ts";`,
    "/app/plain.js": `import "./schema";`,
    "/app/typed.ts": `import type { S } from "./schema";\nexport type T = S;`,
    "/app/schema.d.ts": `export type S = string;`,
  };
  const expected = "module './schema' imported by /app/plain.js not found (tried ";
  for (const first of ["/app/typed.ts", "/app/plain.js"]) {
    const h = await serve({ ...files });
    h.hold(first === "/app/typed.ts" ? "/app/plain.js" : "/app/typed.ts");
    const resolving = resolveProgram(h.url("/app/main.ts"), { fetch }).catch((e: unknown) => e);
    await h.waitForRequest(first === "/app/typed.ts" ? "/app/schema.d.ts" : "/app/schema/index.mjs");
    h.releaseAll();
    const err = await resolving;
    expect(err, `${first} located first`).toBeInstanceOf(ProgramResolveError);
    expect((err as Error).message.startsWith(expected), (err as Error).message).toBe(true);
  }
});
