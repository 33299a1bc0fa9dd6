import { init, parse, type Import } from "es-module-lexer";
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
  } catch (lexError) {
    // The lexer reads TypeScript but not JSX. Loaded only then, so the common path stays small.
    const { importStatements } = await import("./import-statements.ts");
    let statements: string;
    try {
      statements = importStatements(source, path);
    } catch (parseError) {
      const message = parseError instanceof Error ? parseError.message : String(parseError);
      throw new ProgramResolveError(`cannot parse module ${path}: ${message}`, { cause: lexError });
    }
    [imports] = parse(statements, path);
  }
  const found = new Set<string>();
  for (const record of imports) {
    if (record.type === "import-meta") continue;
    // Template literals come back as globs (`./locales/*.js`): not a module we can name.
    if (record.type === "dynamic" && (record.specifier === undefined || record.glob)) continue;
    if (record.specifier !== undefined) found.add(record.specifier);
  }
  return [...found];
}
