/**
 * `compile: true` hands back JavaScript that imports what the sources did not: Sucrase's automatic
 * JSX runtime adds `import { jsx } from "react/jsx-runtime"` to every module with JSX. An app that
 * builds its import map from `externals` (bare specifiers, never fetched) must see it there, or
 * the compiled program fails to load ("Failed to resolve module specifier react/jsx-runtime").
 */
import { expect, it } from "vitest";
import { resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

const files = {
  "/app/main.tsx": `import { n } from "./n.ts";\nimport { x } from "./x.jsx";\nimport { useState } from "react";\nexport const App = () => <p>{n + x}</p>;`,
  "/app/n.ts": `export const n: number = 1;`,
  "/app/x.jsx": `import { color } from "https://cdn.example/colors.js";\nexport const x = <b style={{ color }}>3</b>;`,
};

it("compile: true lists every bare specifier the compiled code imports in externals (react/jsx-runtime)", async () => {
  const h = await serve(files);
  const program = await resolveProgram(h.url("/app/main.tsx"), { fetch, compile: true });
  expect(program.compiled["/app/main.tsx"]).toContain(`from "react/jsx-runtime"`);
  expect(program.externals).toEqual(["https://cdn.example/colors.js", "react", "react/jsx-runtime"]);
});

it("without compile, externals are the sources' imports alone (the app compiles the JSX its own way)", async () => {
  const h = await serve(files);
  const program = await resolveProgram(h.url("/app/main.tsx"), { fetch });
  expect(program.externals).toEqual(["https://cdn.example/colors.js", "react"]);
});

it("compiled TypeScript without JSX adds nothing to externals", async () => {
  const h = await serve({
    "/app/main.ts": `import type { T } from "./t.ts";\nimport { z } from "zod";\nexport const v: T = z;`,
    "/app/t.ts": `export type T = unknown;`,
  });
  const program = await resolveProgram(h.url("/app/main.ts"), { fetch, compile: true });
  expect(program.externals).toEqual(["zod"]);
});
