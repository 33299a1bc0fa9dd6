/**
 * The README's ```tsx and ```ts examples compile as a reader's app would compile them: against
 * the packed package (its .d.ts, its `exports`), under `moduleResolution` "bundler" and "node16",
 * with `strict`, `exactOptionalPropertyTypes` and `verbatimModuleSyntax` on. An example a reader
 * copies must not fail to type.
 */
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

function blocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```tsx?\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

let app: string;
let files: string[];

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), "shared-fetch-readme-"));
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "readme-app", private: true, type: "module" }));
  const modules = join(app, "node_modules");
  // A copy, not a link: TypeScript follows a link to its real path, where no dependency is found.
  await cp(inject("packedDir"), join(modules, "shared-fetch"), { recursive: true });
  const pkg = JSON.parse(await readFile(join(modules, "shared-fetch", "package.json"), "utf8")) as Record<string, Record<string, string>>;
  const links = [
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    "@types/react",
    "@types/react-dom",
    "react-dom",
  ];
  for (const name of links) {
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(join(root, "node_modules", name), join(modules, name), "junction");
  }
  const examples = blocks(await readFile(join(root, "README.md"), "utf8"));
  await mkdir(join(app, "src"));
  files = await Promise.all(
    examples.map(async (code, i) => {
      const file = join(app, "src", `example-${i + 1}.tsx`);
      await writeFile(file, `${code}\nexport {};\n`);
      return file;
    }),
  );
});

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});

function problems(moduleResolution: "bundler" | "node16"): string[] {
  const node16 = moduleResolution === "node16";
  const program = ts.createProgram(files, {
    strict: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    jsx: ts.JsxEmit.ReactJSX,
    target: ts.ScriptTarget.ES2022,
    module: node16 ? ts.ModuleKind.Node16 : ts.ModuleKind.ESNext,
    moduleResolution: node16 ? ts.ModuleResolutionKind.Node16 : ts.ModuleResolutionKind.Bundler,
    // Third-party declarations are theirs (@hocuspocus/common's fail node16's rule on extensions).
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(app.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

describe("README examples on the packed package", () => {
  it("there are examples, and they import several entries of the package", async () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    const code = (await Promise.all(files.map((f) => readFile(f, "utf8")))).join("\n");
    for (const entry of ['"shared-fetch"', '"shared-fetch/devtools"', '"shared-fetch/hocuspocus"']) expect(code).toContain(entry);
  });

  it.each(["bundler", "node16"] as const)(
    "every ```tsx and ```ts block compiles under moduleResolution %s, strict, exactOptionalPropertyTypes, verbatimModuleSyntax",
    (resolution) => {
      expect(problems(resolution)).toEqual([]);
    },
  );
});
