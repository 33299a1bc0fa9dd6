import { init, parse, type Import } from "es-module-lexer";
import { syntaxCause } from "../causes.ts";
import { ProgramResolveError } from "./errors.ts";

/**
 * Specifiers of the static imports, `export … from` (type-only ones included) and string-literal
 * `import()` of a module, in source order, each once.
 */
export async function findImports(source: string, path: string): Promise<string[]> {
  await init();
  let imports: readonly Import[];
  try {
    [imports] = parse(source, path);
  } catch {
    // The lexer reads TypeScript but not JSX. Loaded only then, so the common path stays small.
    const { importStatements } = await import("./import-statements.ts");
    try {
      [imports] = parse(importStatements(source, path), path);
    } catch (err) {
      throw new ProgramResolveError(`cannot parse module ${path}: ${syntaxCause(err)}`, { cause: err });
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
