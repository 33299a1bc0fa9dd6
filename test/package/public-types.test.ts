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

const program = ts.createProgram(entries, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: true,
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
const where = (d: ts.Declaration) => relative(dir, d.getSourceFile().fileName);

/**
 * Names of the package's own types that its public declarations mention but neither entry
 * exports: a user can see them in a hover yet cannot import them to annotate a variable.
 * Walks the shipped .d.ts, where inferred types are spelled out as `import("./x").T` too.
 */
function forgottenTypes(): string[] {
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
      if (named(d) && !exported.has(s)) forgotten.add(`${s.name} (${where(d)})`);
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

/**
 * Optional properties of what a caller passes in (the parameters of every exported function,
 * component and constructor, and of the methods of every exported interface and class) that
 * refuse `undefined` under `exactOptionalPropertyTypes`, though the package reads a property set
 * to undefined as one left out: `{ headers: token ? { … } : undefined }` or
 * `{ awareness: tabs?.awareness }` would not compile in such an app.
 */
function optionsRefusingUndefined(): string[] {
  const found = new Set<string>();
  const seenTypes = new Set<ts.Type>();
  const visitType = (type: ts.Type): void => {
    if (seenTypes.has(type)) return;
    seenTypes.add(type);
    if (type.isUnionOrIntersection()) return type.types.forEach(visitType);
    if (!(type.flags & ts.TypeFlags.Object)) return;
    for (const property of checker.getPropertiesOfType(type)) {
      const d = property.valueDeclaration ?? property.declarations?.[0];
      if (!d || !ours(d)) continue;
      if (ts.isMethodSignature(d) || ts.isMethodDeclaration(d)) continue;
      // The type as written: under exactOptionalPropertyTypes the symbol's type holds a "missing" undefined.
      const written = (ts.isPropertySignature(d) || ts.isPropertyDeclaration(d)) && d.type ? d.type : undefined;
      const declared = written ? checker.getTypeFromTypeNode(written) : checker.getTypeOfSymbol(property);
      if (property.flags & ts.SymbolFlags.Optional) {
        const parts = declared.isUnion() ? declared.types : [declared];
        const takesUndefined = parts.some((t) => t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Any | ts.TypeFlags.Unknown));
        if (!takesUndefined) found.add(`${checker.typeToString(type)}.${property.name} (${where(d)})`);
      }
      if (checker.getSignaturesOfType(declared, ts.SignatureKind.Call).length === 0) visitType(declared);
    }
  };
  const visitSignatures = (type: ts.Type) => {
    for (const kind of [ts.SignatureKind.Call, ts.SignatureKind.Construct])
      for (const signature of checker.getSignaturesOfType(type, kind))
        for (const parameter of signature.getParameters()) visitType(checker.getTypeOfSymbol(parameter));
  };
  for (const s of exported) {
    const d = s.declarations?.[0];
    if (!d || !ours(d)) continue;
    if (s.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Class)) visitSignatures(checker.getTypeOfSymbol(s));
    if (s.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class)) {
      for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(s))) {
        const md = member.valueDeclaration ?? member.declarations?.[0];
        if (md && ours(md) && (ts.isMethodSignature(md) || ts.isMethodDeclaration(md))) visitSignatures(checker.getTypeOfSymbol(member));
      }
    }
  }
  return [...found].sort();
}

describe("the public types", () => {
  it("every type the public declarations mention can be imported from an entry", () => {
    expect(forgottenTypes()).toEqual([]);
  });

  it("every optional input property takes undefined under exactOptionalPropertyTypes (the runtime reads it as left out)", () => {
    expect(optionsRefusingUndefined()).toEqual([]);
  });
});
