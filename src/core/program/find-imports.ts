import { init, parse, type Import } from "es-module-lexer";
import { syntaxCause } from "../causes.ts";
import { ProgramResolveError } from "./errors.ts";

const EXPORT_IMPORT = /\bexport\s+import\s/;

/**
 * Specifiers of the static imports, `export … from` (type-only ones included) and string-literal
 * `import()` of a module, in source order, each once.
 */
export async function findImports(source: string, path: string): Promise<string[]> {
  await init();
  let imports: readonly Import[] | undefined;
  try {
    [imports] = parse(source, path);
  } catch {
    // JSX: read by the token scan below.
  }
  // The lexer reads TypeScript but not JSX, and skips TypeScript's `export import x = require()`.
  // The token scan is loaded only then, so the common path stays small.
  if (!imports || EXPORT_IMPORT.test(source)) {
    const { importStatements } = await import("./import-statements.ts");
    try {
      // In source order; what the lexer read, when it could, is kept beside it.
      imports = [...parse(importStatements(source, path), path)[0], ...(imports ?? [])];
    } catch (err) {
      if (!imports) throw new ProgramResolveError(`cannot parse module ${path}: ${syntaxCause(err)}`, { cause: err });
    }
  }
  const found = new Set<string>();
  for (const record of imports) {
    if (record.type === "import-meta") continue;
    if (record.type === "dynamic") {
      // Template literals come back as globs (`./locales/*.js`): not a module we can name.
      if (record.specifier === undefined || record.glob) continue;
      // `typeof import('./x')` in an annotation is a type, like `type T = import('./x').Y`, which
      // the lexer already skips (and the Sucrase fallback too): follow neither.
      if (record.probablyTypeOnly) continue;
    }
    if (record.specifier !== undefined) found.add(record.specifier);
  }
  return [...found];
}
