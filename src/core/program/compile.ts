import type { Transform } from "sucrase";
import type { ProgramFile } from "../types.ts";
import { syntaxCause } from "../causes.ts";
import { ProgramResolveError } from "./errors.ts";
import { extensionOf } from "./specifiers.ts";

const TRANSFORMS: Record<string, Transform[]> = {
  ".ts": ["typescript"],
  ".mts": ["typescript"],
  ".cts": ["typescript"],
  ".tsx": ["typescript", "jsx"],
  ".jsx": ["jsx"],
};

/**
 * Declaration files (`.d.ts`, `.d.mts`, `.d.cts`) hold no JavaScript and tsc emits nothing for
 * them; Sucrase would turn `export = x` into CommonJS and keep `export as namespace` verbatim.
 */
const transformsOf = (name: string) => (/\.d\.[mc]?ts$/i.test(name) ? undefined : TRANSFORMS[extensionOf(name)]);

/** JavaScript for each TS/JSX file, keyed by file name. Sucrase is loaded only when asked for. */
export async function compileFiles(files: ProgramFile[]): Promise<Record<string, string>> {
  if (!files.some((file) => transformsOf(file.name))) return {};
  const { transform } = await import("#sucrase/index.js");
  const compiled: Record<string, string> = {};
  for (const file of files) {
    const transforms = transformsOf(file.name);
    if (!transforms) continue;
    try {
      compiled[file.name] = transform(file.contents, {
        transforms,
        filePath: file.name,
        jsxRuntime: "automatic",
        production: true,
        // Leave modern syntax alone: the output runs where the source would.
        disableESTransforms: true,
      }).code;
    } catch (err) {
      // Sucrase's message may quote the source; the position is what a reader needs.
      throw new ProgramResolveError(`cannot compile ${file.name}: ${syntaxCause(err)}`, { cause: err });
    }
  }
  return compiled;
}
