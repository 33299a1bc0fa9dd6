import { describe, expect, it } from "vitest";
import { resolveProgram } from "../../src/core/program/index.ts";
import { servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

const names = (program: { files: { name: string }[] }) => program.files.map((f) => f.name);

describe("resolveProgram: module graph", () => {
  it("follows relative imports (./ and ../) and returns main first, the rest sorted by name", async () => {
    const h = await serve({
      "/app/main.ts": `import { b } from "./lib/b.ts";\nimport z from "./z.ts";\nexport const a = b + z;`,
      "/app/lib/b.ts": `import { c } from "../c.ts";\nexport const b = c;`,
      "/app/c.ts": `export const c = 1;`,
      "/app/z.ts": `export default 2;`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(program.main).toBe("/app/main.ts");
    expect(names(program)).toEqual(["/app/main.ts", "/app/c.ts", "/app/lib/b.ts", "/app/z.ts"]);
    expect(program.files[2]).toEqual({ name: "/app/lib/b.ts", contents: `import { c } from "../c.ts";\nexport const b = c;` });
    expect(program.externals).toEqual([]);
  });

  it("resolves root-absolute imports (/lib/x.ts) against the entry's origin, and their own relative imports", async () => {
    const h = await serve({
      "/app/main.ts": `import { x } from "/lib/x.ts";\nconsole.log(x);`,
      "/lib/x.ts": `export { y as x } from "./y.ts";`,
      "/lib/y.ts": `export const y = 1;`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(names(program)).toEqual(["/app/main.ts", "/lib/x.ts", "/lib/y.ts"]);
  });

  it("follows type-only imports and type-only re-exports", async () => {
    const h = await serve({
      "/app/main.ts": [
        `import type { A } from "./types.ts";`,
        `import { type B, b } from "./b.ts";`,
        `export type { C } from "./c-types.ts";`,
        `export type * from "./d-types.ts";`,
        `export const value: A = b as B;`,
      ].join("\n"),
      "/app/types.ts": `export type A = number;`,
      "/app/b.ts": `export type B = number; export const b = 1;`,
      "/app/c-types.ts": `export interface C { c: string }`,
      "/app/d-types.ts": `export type D = string;`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(names(program)).toEqual(["/app/main.ts", "/app/b.ts", "/app/c-types.ts", "/app/d-types.ts", "/app/types.ts"]);
  });

  it("follows re-exports (export * from, export { x } from, export * as ns from)", async () => {
    const h = await serve({
      "/app/main.js": `export * from "./star.js";\nexport { named } from "./named.js";\nexport * as ns from "./ns.js";`,
      "/app/star.js": `export const s = 1;`,
      "/app/named.js": `export const named = 1;`,
      "/app/ns.js": `export const n = 1;`,
    });
    const program = await resolveProgram(h.url("/app/main.js"), { fetch });
    expect(names(program)).toEqual(["/app/main.js", "/app/named.js", "/app/ns.js", "/app/star.js"]);
  });

  it("follows string-literal dynamic import() and ignores non-literal ones", async () => {
    const h = await serve({
      "/app/main.js": [
        `const lazy = () => import("./lazy.js");`,
        `const name = "./computed.js";`,
        `const computed = () => import(name);`,
        "const tpl = (x) => import(`./tpl/${x}.js`);",
        `console.log(import.meta.url);`,
      ].join("\n"),
      "/app/lazy.js": `export default 1;`,
      "/app/computed.js": `export default 2;`,
    });
    const program = await resolveProgram(h.url("/app/main.js"), { fetch });
    expect(names(program)).toEqual(["/app/main.js", "/app/lazy.js"]);
    expect(h.requests.filter((r) => r.includes("computed") || r.includes("tpl"))).toEqual([]);
  });

  it("resolves a cycle, requesting each file once", async () => {
    const h = await serve({
      "/app/a.ts": `import { b } from "./b.ts"; export const a = () => b;`,
      "/app/b.ts": `import { a } from "./a.ts"; import { c } from "./c"; export const b = () => a() + c;`,
      "/app/c.ts": `import { b } from "./b.ts"; export const c = 1;`,
    });
    const program = await resolveProgram(h.url("/app/a.ts"), { fetch });
    expect(names(program)).toEqual(["/app/a.ts", "/app/b.ts", "/app/c.ts"]);
    expect(h.count("/app/a.ts")).toBe(1);
    expect(h.count("/app/b.ts")).toBe(1);
    expect(h.count("/app/c.ts")).toBe(1);
  });

  it("resolves a diamond (two importers of one module, by different spellings), requesting each file once", async () => {
    const h = await serve({
      "/app/main.ts": `import "./left.ts"; import "./right.ts";`,
      "/app/left.ts": `import { shared } from "./shared.ts";`,
      "/app/right.ts": `import { shared } from "./shared";\nimport "./sub/deep.ts";`,
      "/app/sub/deep.ts": `import { shared } from "../shared";`,
      "/app/shared.ts": `export const shared = 1;`,
    });
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(names(program)).toEqual(["/app/main.ts", "/app/left.ts", "/app/right.ts", "/app/shared.ts", "/app/sub/deep.ts"]);
    for (const path of ["/app/main.ts", "/app/left.ts", "/app/right.ts", "/app/sub/deep.ts", "/app/shared.ts"]) {
      expect(h.count(path), path).toBe(1);
    }
  });

  it("lists bare specifiers and other origins in externals (sorted, unique) and never requests them", async () => {
    const h = await serve({
      "/app/main.tsx": [
        `import React from "react";`,
        `import { useState } from "react";`,
        `import { x } from "@scope/pkg/sub";`,
        `import lodash from "https://esm.sh/lodash";`,
        `import fs from "node:fs";`,
        `import other from "//other.invalid/mod.js";`,
        `import "./local.ts";`,
      ].join("\n"),
      "/app/local.ts": `import type { Y } from "@scope/types";`,
    });
    const program = await resolveProgram(h.url("/app/main.tsx"), { fetch });
    expect(program.externals).toEqual([
      "//other.invalid/mod.js",
      "@scope/pkg/sub",
      "@scope/types",
      "https://esm.sh/lodash",
      "node:fs",
      "react",
    ]);
    expect(h.requests).toEqual(["/app/main.tsx", "/app/local.ts"]);
  });

  it("fetches an absolute URL of the entry's own origin as a module", async () => {
    const h = await serve({ "/app/abs.ts": `export const abs = 1;` });
    h.set("/app/main.ts", `import { abs } from "${h.url("/app/abs.ts")}";`);
    const program = await resolveProgram(h.url("/app/main.ts"), { fetch });
    expect(names(program)).toEqual(["/app/main.ts", "/app/abs.ts"]);
    expect(program.externals).toEqual([]);
  });

  it("uses the entry's query string for the entry request alone, never for dependencies", async () => {
    const h = await serve({
      "/app/main.ts": `import { dep } from "./dep.ts";`,
      "/app/dep.ts": `import { main } from "./main.ts"; import "./leaf"; export const dep = 1;`,
      "/app/leaf.ts": `export {};`,
    });
    const program = await resolveProgram(h.url("/app/main.ts?token=s3cret&v=2#frag"), { fetch });
    expect(h.requests).toEqual(["/app/main.ts?token=s3cret&v=2", "/app/dep.ts", "/app/leaf.ts"]);
    expect(program.main).toBe("/app/main.ts");
    expect(names(program)).toEqual(["/app/main.ts", "/app/dep.ts", "/app/leaf.ts"]);
    expect(JSON.stringify(program)).not.toContain("s3cret");
  });

  it("is deterministic: the same graph gives an identical Program", async () => {
    const h = await serve({
      "/app/main.ts": `import "./c.ts"; import "./a.ts"; import "./b.ts"; import "zeta"; import "alpha";`,
      "/app/a.ts": `import "./c.ts";`,
      "/app/b.ts": `import "./a.ts";`,
      "/app/c.ts": `export {};`,
    });
    const first = await resolveProgram(h.url("/app/main.ts"), { fetch });
    const second = await resolveProgram(h.url("/app/main.ts"), { fetch, concurrency: 1 });
    expect(second).toEqual(first);
    expect(names(first)).toEqual(["/app/main.ts", "/app/a.ts", "/app/b.ts", "/app/c.ts"]);
    expect(first.externals).toEqual(["alpha", "zeta"]);
  });

  it("carries JSON and CSS imports as files without scanning them for imports", async () => {
    const h = await serve({
      "/app/main.js": `import data from "./data.json" with { type: "json" };\nimport "./style.css";`,
      "/app/data.json": `{ "import": "./not-a-module.js" }`,
      "/app/style.css": `@import "./other.css"; a { color: red }`,
    });
    const program = await resolveProgram(h.url("/app/main.js"), { fetch });
    expect(names(program)).toEqual(["/app/main.js", "/app/data.json", "/app/style.css"]);
  });
});
