/**
 * The README's ```tsx examples compile under `tsc --strict` against this package's sources (as
 * "shared-fetch" and "shared-fetch/devtools"): an example a reader copies must not fail to type.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function blocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```tsx\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe("README examples", () => {
  it("every ```tsx block compiles under --strict", () => {
    const examples = blocks(readFileSync(join(root, "README.md"), "utf8"));
    expect(examples.length).toBeGreaterThanOrEqual(3);
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
        paths: { "shared-fetch": ["src/index.ts"], "shared-fetch/devtools": ["devtools/index.ts"] },
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
