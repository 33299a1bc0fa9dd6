/**
 * TypeScript's `import x = require("./y")` is an import edge: the lexer follows it in a .ts module,
 * so a .tsx module (read by the Sucrase token scan) must follow it too, the type-only form
 * included. Otherwise the same line gives a program with or without ./y by file extension. The
 * lexer skips `export import x = require()` in both: such a module is read by the scan as well.
 */
import { expect, it } from "vitest";
import { resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();
const names = (p: { files: { name: string }[] }) => p.files.map((f) => f.name);
const SOURCE = `import a = require("./a");\nimport type B = require("./b");\n`;
const DEPS = { "/app/a.ts": `export {};`, "/app/b.ts": `export {};` };

it("import x = require('./y') is followed in a .tsx module as in a .ts one (the type-only form too)", async () => {
  const h = await serve({ "/app/main.ts": SOURCE, "/app/view.tsx": `${SOURCE}export const el = <b>x</b>;`, ...DEPS });
  const deps = ["/app/a.ts", "/app/b.ts"];
  expect(names(await resolveProgram(h.url("/app/main.ts"), { fetch }))).toEqual(["/app/main.ts", ...deps]);
  expect(names(await resolveProgram(h.url("/app/view.tsx"), { fetch }))).toEqual(["/app/view.tsx", ...deps]);
});

it("a local alias (import x = N.y) is no edge in a .tsx module", async () => {
  const h = await serve({ "/app/view.tsx": `import Y = N.Y;\nexport const el = <b>x</b>;` });
  expect(names(await resolveProgram(h.url("/app/view.tsx"), { fetch }))).toEqual(["/app/view.tsx"]);
});

it("export import x = require('./y') (a re-exported import-equals) is followed in .ts and .tsx modules", async () => {
  const source = `export import a = require("./a");\nexport const n = 1;\n`;
  const h = await serve({ "/app/main.ts": source, "/app/view.tsx": `${source}export const el = <b>x</b>;`, "/app/a.ts": `export {};` });
  expect(names(await resolveProgram(h.url("/app/main.ts"), { fetch }))).toEqual(["/app/main.ts", "/app/a.ts"]);
  expect(names(await resolveProgram(h.url("/app/view.tsx"), { fetch }))).toEqual(["/app/view.tsx", "/app/a.ts"]);
});

it("the words 'export import' in a comment change nothing the lexer read", async () => {
  const h = await serve({
    "/app/main.ts": `// export import is TypeScript's\nimport "./a.ts";\nexport { b } from "./b.ts";`,
    "/app/a.ts": `export {};`,
    "/app/b.ts": `export const b = 1;`,
  });
  expect(names(await resolveProgram(h.url("/app/main.ts"), { fetch }))).toEqual(["/app/main.ts", "/app/a.ts", "/app/b.ts"]);
});
