/**
 * TypeScript's `import x = require("./y")` is an import edge: the lexer follows it in a .ts module,
 * so a .tsx module (read by the Sucrase token scan) must follow it too, the type-only form
 * included. Otherwise the same line gives a program with or without ./y by file extension.
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
