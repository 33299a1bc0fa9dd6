import { describe, expect, it } from "vitest";
import { findImports } from "../../src/core/program/find-imports.ts";
import { resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

// JSX text with an apostrophe and a slash stops es-module-lexer; the Sucrase tokenizer takes over.
const view = [
  `import type { Props } from "./props";`,
  `import { type Theme, useTheme } from "./theme";`,
  `import React from "react";`,
  `export type { Shared } from "./shared-types";`,
  `export { Button } from "./button";`,
  `type Lazy = typeof import("./only-a-type");`,
  `let annotated: typeof import("./annotation-type") | undefined;`,
  `export default function View({ items }: Props): JSX.Element {`,
  `  const theme: Theme = useTheme();`,
  `  return <ul className="list">{items.map((i: number) => <li key={i}>it's {i / 2}</li>)}`,
  `    <React.Suspense>{import("./lazy-in-jsx") && null}</React.Suspense></ul>;`,
  `}`,
  "const later = (name: string) => import(`./pages/${name}`);",
].join("\n");

describe("resolveProgram: JSX and TypeScript sources", () => {
  it("finds imports in JSX that the lexer cannot read, type-only ones included", async () => {
    expect(await findImports(view, "/app/view.tsx")).toEqual([
      "./props",
      "./theme",
      "react",
      "./shared-types",
      "./button",
      "./lazy-in-jsx",
    ]);
  });

  it("finds imports in a .jsx file", async () => {
    const source = `import { a } from "./a.js";\nexport const el = <p>a / b isn't c</p>;\nexport * from "./b.js";`;
    expect(await findImports(source, "/app/x.jsx")).toEqual(["./a.js", "./b.js"]);
  });

  it("keeps reading TypeScript generics and casts with the lexer (no JSX in .ts)", async () => {
    const source = `import { a } from "./a";\nconst x = <T,>(v: T) => v;\nconst y = <number>(a as unknown);\nexport { y } from "./y";`;
    expect(await findImports(source, "/app/x.ts")).toEqual(["./a", "./y"]);
  });

  it("does not follow import() types in annotations or aliases, with or without the JSX fallback", async () => {
    const types = `type A = import("./alias").A;\nlet b: typeof import("./annotation");\nconst c = import("./runtime").then((m) => m);`;
    expect(await findImports(types, "/app/x.ts")).toEqual(["./runtime"]);
    expect(await findImports(`${types}\nconst el = <p>it's</p>;`, "/app/x.tsx")).toEqual(["./runtime"]);
  });

  it("reports a module that neither the lexer nor Sucrase can parse", async () => {
    await expect(findImports(`import { from "./a"; <div>it's</`, "/app/broken.tsx")).rejects.toThrow(
      /^cannot parse module \/app\/broken\.tsx: /,
    );
  });

  it("resolves a TSX program end to end", async () => {
    const h = await serve({
      "/app/view.tsx": view,
      "/app/props.ts": `export type Props = { items: number[] };`,
      "/app/theme.ts": `export type Theme = string; export const useTheme = () => "dark";`,
      "/app/shared-types.ts": `export type Shared = 1;`,
      "/app/button.tsx": `export const Button = () => <button>ok</button>;`,
      "/app/lazy-in-jsx.tsx": `export default 1;`,
    });
    const program = await resolveProgram(h.url("/app/view.tsx"), { fetch });
    expect(program.files.map((f) => f.name)).toEqual([
      "/app/view.tsx",
      "/app/button.tsx",
      "/app/lazy-in-jsx.tsx",
      "/app/props.ts",
      "/app/shared-types.ts",
      "/app/theme.ts",
    ]);
    expect(program.externals).toEqual(["react"]);
    expect(h.count("/app/only-a-type.ts")).toBe(0);
    expect(program).not.toHaveProperty("compiled");
  });

  it("compile: true adds JavaScript for the .ts/.tsx/.jsx files only", async () => {
    const h = await serve({
      "/app/main.tsx": `import { n } from "./n";\nimport { j } from "./j.js";\nimport { x } from "./x.jsx";\nexport const App = (): JSX.Element => <p title="t">{n + j + x}</p>;`,
      "/app/n.ts": `export const n: number = 1;`,
      "/app/j.js": `export const j = 2;`,
      "/app/x.jsx": `export const x = <b>3</b>;`,
    });
    const program = await resolveProgram(h.url("/app/main.tsx"), { fetch, compile: true });
    expect(Object.keys(program.compiled).sort()).toEqual(["/app/main.tsx", "/app/n.ts", "/app/x.jsx"]);
    expect(program.compiled["/app/n.ts"]).toContain("export const n = 1;");
    expect(program.compiled["/app/main.tsx"]).toContain(`from "react/jsx-runtime"`);
    expect(program.compiled["/app/main.tsx"]).not.toContain("JSX.Element");
    expect(program.compiled["/app/main.tsx"]).not.toContain("<p");
    expect(program.files.map((f) => f.name)).toEqual(["/app/main.tsx", "/app/j.js", "/app/n.ts", "/app/x.jsx"]);
  });

  it("compile: true gives no JavaScript for declaration files, which have none (tsc emits nothing for them)", async () => {
    const h = await serve({
      "/app/main.ts": [
        `import type { Api } from "./api";`,
        `import type { Legacy } from "./legacy.js";`,
        `import type { Mod } from "./mod.mjs";`,
        `export const api: Api | Legacy | Mod = { ok: true };`,
      ].join("\n"),
      "/app/api.d.ts": `export interface Api { ok: boolean }\nexport as namespace ApiLib;`,
      "/app/legacy.d.ts": `declare const legacy: { ok: boolean };\nexport = legacy;\nexport type Legacy = typeof legacy;`,
      "/app/mod.d.mts": `export declare const mod: { ok: boolean };\nexport type Mod = typeof mod;`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch, compile: true });
    // The declaration files are carried as files, as the program's sources.
    expect(program.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/api.d.ts", "/app/legacy.d.ts", "/app/mod.d.mts"]);
    // Sucrase turned them into `module.exports = legacy;` and a verbatim `export as namespace`.
    expect(Object.keys(program.compiled)).toEqual(["/app/main.ts"]);
    expect(program.externals).toEqual([]);
  });
});
