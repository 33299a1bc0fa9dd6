/**
 * The README's ```tsx and ```ts examples compile under `tsc --strict` against this package's
 * sources, each subpath of package.json's `exports` mapped to the source its types are built from
 * ("shared-fetch", "shared-fetch/hocuspocus", …): an example a reader copies must not fail to type.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function blocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```tsx?\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** "shared-fetch/x" → the source whose declarations `exports["./x"].types` are built from. */
function subpaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const types = typeof target === "object" ? target.types : undefined;
    if (!types) continue;
    const source = types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, "");
    paths[`shared-fetch${subpath.slice(1)}`] = [`${source}.ts`, `${source}.tsx`];
  }
  return paths;
}

describe("README examples", () => {
  it("every ```tsx and ```ts block compiles under --strict, whatever subpath of the package it imports", () => {
    const examples = blocks(readFileSync(join(root, "README.md"), "utf8"));
    expect(examples.length).toBeGreaterThanOrEqual(5);
    const paths = subpaths();
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(["shared-fetch", "shared-fetch/devtools", "shared-fetch/hocuspocus"]));
    // Inside the repository so that node_modules resolves; removed afterwards.
    const dir = mkdtempSync(join(root, "node_modules", ".readme-examples-"));
    try {
      const files = examples.map((code, i) => {
        const file = join(dir, `example-${i + 1}.tsx`);
        writeFileSync(file, `${code}\nexport {};\n`);
        return file;
      });
      // The package's own ambient declarations (the sources are compiled, not a built .d.ts).
      const ambient = [join(root, "src/core/program/sucrase-parser.d.ts")];
      const program = ts.createProgram([...files, ...ambient], {
        strict: true,
        noEmit: true,
        jsx: ts.JsxEmit.ReactJSX,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
        lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
        baseUrl: root,
        paths,
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file
          ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
          : "";
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
