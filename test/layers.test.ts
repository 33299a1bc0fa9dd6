import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

/**
 * Layers point one way: core ← sync ← hocuspocus ← worker ← react ← the entries ← devtools (a
 * layer may import only those before it). The entries (`shared-fetch`, `shared-fetch/internals`)
 * gather the layers; only the devtools, outside the package's source, import them.
 */
const LAYERS = [
  "src/core",
  "src/sync",
  "src/hocuspocus",
  "src/worker",
  "src/react",
  "src/index.ts",
  "src/internals.ts",
  "devtools",
] as const;
type Layer = (typeof LAYERS)[number];
/** Packages each layer may not import (the core is framework- and transport-free). */
const FORBIDDEN: Partial<Record<Layer, RegExp>> = {
  "src/core": /^(react|react-dom|@tanstack\/|y-indexeddb|y-websocket|y-protocols\/sync$|@hocuspocus\/|ws$)/,
  "src/sync": /^(react|react-dom|@tanstack\/|@hocuspocus\/)/,
  "src/hocuspocus": /^(react|react-dom|@tanstack\/)/,
  "src/worker": /^(react|react-dom|@tanstack\/|@hocuspocus\/)/,
  "src/react": /^(y-indexeddb|y-websocket|@hocuspocus\/)/,
};

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The rank of the layer a path belongs to; -1 for a path in none (a test, the simulations, a new folder). */
function layerOf(path: string): number {
  return LAYERS.findIndex((layer) => path === layer || path.startsWith(`${layer}/`));
}

/**
 * Every module specifier of the file: imports, `export … from`, `import()` and `import type`, as
 * the TypeScript compiler reads them (a JavaScript lexer misreads type syntax and drops them).
 */
function imports(path: string): string[] {
  const source = readFileSync(join(ROOT, path), "utf8");
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

/** What is wrong with `file` importing `specifier`: a later layer, a path in no layer, a forbidden package. */
function problemsOf(file: string, specifier: string): string[] {
  const own = layerOf(file);
  if (own < 0) return [`${file} is in no layer`];
  if (specifier.startsWith(".")) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
    const at = layerOf(target);
    if (at < 0) return [`${file} imports ${specifier}, outside the package's layers`];
    return at > own ? [`${file} imports ${specifier} (${LAYERS[at]})`] : [];
  }
  return FORBIDDEN[LAYERS[own]!]?.test(specifier) ? [`${file} imports ${specifier}`] : [];
}

describe("layers point one way: core ← sync ← hocuspocus ← worker ← react ← devtools (issue: layers)", () => {
  it("every source file belongs to a layer (a new folder under src/ is placed in LAYERS first)", () => {
    const sources = [...files("src"), ...files("devtools")];
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.filter((file) => layerOf(file) < 0)).toEqual([]);
  });

  it.each(["src/core", "src/sync", "src/hocuspocus", "src/worker", "src/react", "devtools"].map((layer) => [layer]))(
    "%s imports nothing from a later layer and no forbidden package",
    (layer) => {
      const problems: string[] = [];
      for (const file of files(layer)) for (const specifier of imports(file)) problems.push(...problemsOf(file, specifier));
      expect(problems).toEqual([]);
    },
  );

  it('README, Package: "`ws` is a dependency for it [the sync server] alone, no bundle imports it"', () => {
    const ws = /^ws(\/|$)/;
    const importers = [...files("src"), ...files("devtools")].filter((file) => imports(file).some((s) => ws.test(s)));
    expect(importers).toEqual([]);
    expect(imports("bin/sync-server.mjs").filter((s) => ws.test(s))).toEqual(["ws"]);
  });

  it("every import is read, type syntax and re-exports included", () => {
    const read = (source: string) => ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
    const typed = "export class E extends Error {\n  constructor(readonly url: string) { super(`<${url}>`); }\n}\n";
    expect(
      read(`${typed}export { H } from "../hocuspocus/errors.ts";\nimport type { S } from "../internals.ts";\nvoid import("../sync/x.ts");`),
    ).toEqual(["../hocuspocus/errors.ts", "../internals.ts", "../sync/x.ts"]);
  });

  it("the check can fail: each kind of wrong import is reported", () => {
    expect(problemsOf("src/core/store.ts", "../sync/connect-tabs.ts")).toHaveLength(1);
    expect(problemsOf("src/core/store.ts", "../hocuspocus/errors.ts")).toHaveLength(1);
    expect(problemsOf("src/core/store.ts", "../worker/port.ts")).toHaveLength(1);
    expect(problemsOf("src/core/store.ts", "../internals.ts")).toHaveLength(1);
    expect(problemsOf("src/core/store.ts", "../index.ts")).toHaveLength(1);
    expect(problemsOf("src/core/store.ts", "../../sim/host.ts")).toHaveLength(1);
    expect(problemsOf("src/sync/connection.ts", "../react/provider.tsx")).toHaveLength(1);
    expect(problemsOf("src/sync/connection.ts", "../hocuspocus/errors.ts")).toHaveLength(1);
    expect(problemsOf("src/react/provider.tsx", "../index.ts")).toHaveLength(1);
    expect(problemsOf("src/core/store.ts", "react")).toHaveLength(1);
    expect(problemsOf("src/core/store.ts", "@hocuspocus/provider")).toHaveLength(1);
    expect(problemsOf("src/react/provider.tsx", "y-indexeddb")).toHaveLength(1);
    // and what is allowed passes
    expect(problemsOf("src/core/store.ts", "./engine.ts")).toEqual([]);
    expect(problemsOf("src/core/store.ts", "yjs")).toEqual([]);
    expect(problemsOf("src/hocuspocus/echo-fence.ts", "../sync/trip-probe.ts")).toEqual([]);
    expect(problemsOf("devtools/core.ts", "../src/internals.ts")).toEqual([]);
  });
});
