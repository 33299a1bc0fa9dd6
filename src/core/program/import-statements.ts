import { parse, type Token } from "#sucrase/parser/index.js";
import { ContextualKeyword } from "#sucrase/parser/tokenizer/keywords.js";
import { TokenType as T } from "#sucrase/parser/tokenizer/types.js";
import { extensionOf } from "./specifiers.ts";

const TYPESCRIPT = new Set([".ts", ".mts", ".cts", ".tsx"]);
/** In `.ts` files `<T>x` is a type assertion, so JSX must stay off there. */
const NO_JSX = new Set([".ts", ".mts", ".cts"]);
// `as` is a token of its own in `export * as ns from` (a name inside braces and `import * as`).
const CLAUSE_TOKENS = new Set([T.name, T._as, T.braceL, T.braceR, T.comma, T.star, T._default, T.string]);

/**
 * For modules es-module-lexer cannot read (JSX): Sucrase's tokenizer finds the import and
 * re-export statements, and their text alone is handed back to the lexer. Transforming the file
 * instead would drop `import type` and `export type … from`, which a program must keep.
 */
export function importStatements(source: string, path: string): string {
  const ext = extensionOf(path);
  const { tokens } = parse(source, !NO_JSX.has(ext), TYPESCRIPT.has(ext), false);
  const statements: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    // Type positions emit nothing: `type T = typeof import('./x')` is not an edge.
    if (token.isType) continue;
    if (token.type === T._import) {
      const next = tokens[i + 1];
      if (next?.type === T.parenL) {
        const last = argumentEnd(tokens, i + 2);
        const after = tokens[last + 1];
        if (last !== -1 && (after?.type === T.parenR || after?.type === T.comma)) {
          statements.push(`import(${source.slice(tokens[i + 2]!.start, tokens[last]!.end)});`);
        }
        continue;
      }
      if (next?.type === T.dot) continue; // import.meta
      const required = requireStringIndex(tokens, i + 1);
      if (required !== -1) {
        // The lexer reads `import x = require("./x")` as an edge (as it does in a .ts module).
        statements.push(`${source.slice(token.start, tokens[required + 1]!.end)};`);
        continue;
      }
    } else if (token.type !== T._export) {
      continue;
    }
    const specifier = moduleStringIndex(tokens, i + 1, token.type === T._import);
    if (specifier !== -1) statements.push(`${source.slice(token.start, tokens[specifier]!.end)};`);
  }
  return statements.join("\n");
}

/**
 * Index of the last token of a literal specifier at `start`: a string, or a template with no
 * substitution (`` `./x.ts` ``: backquote, template, backquote); -1 for anything else.
 */
function argumentEnd(tokens: Token[], start: number): number {
  if (tokens[start]?.type === T.string) return start;
  const [open, text, close] = [tokens[start], tokens[start + 1], tokens[start + 2]];
  return open?.type === T.backQuote && text?.type === T.template && close?.type === T.backQuote ? start + 2 : -1;
}

/** Index of the string in `import [type] x = require("…")` (TypeScript's import-equals), or -1. */
function requireStringIndex(tokens: Token[], start: number): number {
  let j = start;
  if (tokens[j]?.contextualKeyword === ContextualKeyword._type && tokens[j + 1]?.type === T.name) j++;
  const [name, eq, callee, open, text, close] = tokens.slice(j, j + 6);
  const isRequire = callee?.type === T.name && callee.contextualKeyword === ContextualKeyword._require;
  const matched = name?.type === T.name && eq?.type === T.eq && isRequire && open?.type === T.parenL;
  return matched && text?.type === T.string && close?.type === T.parenR ? j + 4 : -1;
}

/** Index of the module string ending an import or `export … from` clause, or -1 when there is none. */
function moduleStringIndex(tokens: Token[], start: number, isImport: boolean): number {
  if (isImport && tokens[start]?.type === T.string) return start; // import './side-effect'
  for (let j = start; j < tokens.length; j++) {
    const token = tokens[j]!;
    if (token.type === T.name && token.contextualKeyword === ContextualKeyword._from) {
      if (tokens[j + 1]?.type === T.string) return j + 1;
    }
    // Anything else (`const`, `=`, `;`, `function`) means a declaration or a local export list.
    if (!CLAUSE_TOKENS.has(token.type)) return -1;
  }
  return -1;
}
