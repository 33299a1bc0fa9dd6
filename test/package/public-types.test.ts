import { join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, inject, it } from "vitest";

const dir = inject("packedDir");
// Every entry with a stable API (not `shared-fetch/internals`, which says it may change in any release).
const entries = [
  "dist/src/index.d.ts",
  "dist/devtools/index.d.ts",
  "dist/devtools/production.d.ts",
  "dist/src/hocuspocus/index.d.ts",
  "dist/src/worker/index.d.ts",
  "dist/src/worker/shared-worker.d.ts",
].map((f) => join(dir, f));

/**
 * Names of the package's own types that its public declarations mention but neither entry
 * exports: a user can see them in a hover yet cannot import them to annotate a variable.
 * Walks the shipped .d.ts, where inferred types are spelled out as `import("./x").T` too.
 */
function forgottenTypes(): string[] {
  const program = ts.createProgram(entries, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const real = (s: ts.Symbol | undefined) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const exported = new Set<ts.Symbol>();
  for (const entry of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    for (const s of checker.getExportsOfModule(module)) exported.add(real(s)!);
  }
  const ours = (d: ts.Declaration) => resolve(d.getSourceFile().fileName).startsWith(resolve(dir, "dist") + sep);
  const named = (d: ts.Node) =>
    ts.isTypeAliasDeclaration(d) || ts.isInterfaceDeclaration(d) || ts.isClassDeclaration(d) || ts.isEnumDeclaration(d);
  const seen = new Set<ts.Symbol>();
  const forgotten = new Set<string>();
  const visitSymbol = (symbol: ts.Symbol | undefined): void => {
    const s = real(symbol);
    if (!s || seen.has(s)) return;
    seen.add(s);
    for (const d of s.declarations ?? []) {
      if (!ours(d)) continue;
      if (named(d) && !exported.has(s)) forgotten.add(`${s.name} (${relative(dir, d.getSourceFile().fileName)})`);
      visitNode(d);
    }
  };
  const rightmost = (n: ts.EntityName) => (ts.isQualifiedName(n) ? n.right : n);
  const visitNode = (node: ts.Node): void => {
    if (ts.isTypeReferenceNode(node)) visitSymbol(checker.getSymbolAtLocation(rightmost(node.typeName)));
    else if (ts.isExpressionWithTypeArguments(node)) visitSymbol(checker.getSymbolAtLocation(node.expression));
    else if (ts.isImportTypeNode(node) && node.qualifier) visitSymbol(checker.getSymbolAtLocation(rightmost(node.qualifier)));
    else if (ts.isTypeQueryNode(node)) visitSymbol(checker.getSymbolAtLocation(rightmost(node.exprName)));
    ts.forEachChild(node, visitNode);
  };
  for (const s of exported) visitSymbol(s);
  return [...forgotten].sort();
}

describe("the public types", () => {
  it("every type the public declarations mention can be imported from an entry", () => {
    expect(forgottenTypes()).toEqual([]);
  });
});
