/**
 * The program resolver's lazy chunks (useProgram, store.ensureProgram) as an app gets them: the
 * JSX import scan uses Sucrase's tokenizer and `compile: true` its transform. Both must come from
 * one build of Sucrase, or a bundler packs its ES build (the package's `module` field, for
 * `transform`) beside its CommonJS one (a deep import of the parser): the parser twice, ≈ 28 KiB
 * min+gz more on a program's first resolution. Node, which cannot load Sucrase's ES build
 * (extensionless imports), must still get the CommonJS one. Built from dist/, which the package
 * project's global setup rebuilt when it packed (size.test.ts checks it is what ships).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build, type Rollup } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const program = join(root, "dist/src/core/program");

let dir: string;
let chunks: Rollup.OutputChunk[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "shared-fetch-program-bundle-"));
  const entry = join(dir, "app.js");
  await writeFile(entry, `export { resolveProgram } from ${JSON.stringify(join(program, "index.js"))};\n`);
  const output = (await build({
    configFile: false,
    root: dir,
    logLevel: "silent",
    mode: "production",
    build: { write: false, minify: true, rollupOptions: { input: entry, preserveEntrySignatures: "strict" } },
  })) as Rollup.RollupOutput;
  chunks = output.output.filter((o): o is Rollup.OutputChunk => o.type === "chunk");
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the program resolver in an app's bundle (Vite, from the package's dist/)", () => {
  it("holds one copy of Sucrase: the JSX scan's parser and compile's transform share one build", () => {
    // A Sucrase module by its place in either build: dist/esm/parser/index.js is dist/parser/index.js.
    const sucrase = chunks
      .flatMap((c) => Object.keys(c.modules))
      .map((id) => /node_modules\/sucrase\/dist\/(esm\/)?(.*)$/.exec(id.replaceAll("\\", "/")))
      .filter((m) => m !== null);
    expect(sucrase.length).toBeGreaterThan(20);
    const builds = new Set(sucrase.map((m) => (m[1] ? "ES" : "CommonJS")));
    const twice = sucrase.map((m) => m[2]).filter((file, i, all) => all.indexOf(file) !== i);
    expect({ builds: [...builds], twice }).toEqual({ builds: ["ES"], twice: [] });
    // Still lazy: no Sucrase in what the entry loads at once.
    const entry = chunks.find((c) => c.isEntry)!;
    expect(Object.keys(entry.modules).filter((id) => id.includes("sucrase"))).toEqual([]);
  });

  it("runs in Node, which gets Sucrase's CommonJS build: the JSX scan and compile of a .tsx module", async () => {
    const url = (file: string) => JSON.stringify(pathToFileURL(join(program, file)).href);
    const script = [
      `const { importStatements } = await import(${url("import-statements.js")});`,
      `const { compileFiles } = await import(${url("compile.js")});`,
      `const contents = 'import { a } from "./a"; export const App = () => <div>{a as number}</div>;';`,
      `const compiled = await compileFiles([{ name: "/app.tsx", contents }]);`,
      `console.log(JSON.stringify([importStatements(contents, "/app.tsx"), compiled["/app.tsx"].includes("jsx-runtime")]));`,
    ].join("\n");
    const { NODE_ENV: _testEnv, ...env } = process.env;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd: root, env });
    expect(JSON.parse(stdout.trim())).toEqual([expect.stringContaining('import { a } from "./a"'), true]);
  });
});
