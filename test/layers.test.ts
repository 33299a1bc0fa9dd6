import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { init, parse } from "es-module-lexer";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

/** Layers point one way: core ← sync ← worker ← react ← devtools (a layer may import only those before it). */
const LAYERS = ["src/core", "src/sync", "src/worker", "src/react", "devtools"] as const;
/** Packages each layer may not import (the core is framework- and transport-free). */
const FORBIDDEN: Record<(typeof LAYERS)[number], RegExp> = {
  "src/core": /^(react|react-dom|@tanstack\/|y-indexeddb|y-websocket|ws$)/,
  "src/sync": /^(react|react-dom|@tanstack\/)/,
  "src/worker": /^(react|react-dom|@tanstack\/)/,
  "src/react": /^(y-indexeddb|y-websocket)/,
  devtools: /^$/,
};

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function layerOf(path: string): number {
  return LAYERS.findIndex((layer) => path === layer || path.startsWith(`${layer}/`));
}

async function imports(path: string): Promise<string[]> {
  await init;
  const source = readFileSync(join(ROOT, path), "utf8");
  try {
    return parse(source)[0]
      .map((i) => (i as { n?: string }).n)
      .filter((n): n is string => typeof n === "string");
  } catch {
    // The lexer reads JavaScript; for a file whose TypeScript or JSX it cannot lex, every
    // static `from "…"` and `import("…")`.
    return [...source.matchAll(/(?:from\s+|import\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
  }
}

describe("layers point one way: core ← sync ← react ← devtools (issue: layers)", () => {
  it.each(LAYERS.map((layer) => [layer]))("%s imports nothing from a later layer and no forbidden package", async (layer) => {
    const own = layerOf(layer);
    const problems: string[] = [];
    for (const file of files(layer)) {
      for (const specifier of await imports(file)) {
        if (specifier.startsWith(".")) {
          const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
          const at = layerOf(target);
          if (at > own) problems.push(`${file} imports ${specifier} (${LAYERS[at]})`);
          if (target === "src/index.ts" && own <= layerOf("src/react")) problems.push(`${file} imports the package entry`);
        } else if (FORBIDDEN[layer].source !== "^$" && FORBIDDEN[layer].test(specifier)) {
          problems.push(`${file} imports ${specifier}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("the check can fail: a core file importing sync is caught", () => {
    const target = relative(ROOT, resolve(ROOT, "src/core", "../sync/connect-tabs.ts"));
    expect(layerOf(target)).toBeGreaterThan(layerOf("src/core/store.ts"));
    expect(FORBIDDEN["src/core"].test("react")).toBe(true);
    expect(FORBIDDEN["src/core"].test("yjs")).toBe(false);
  });
});
