/**
 * A Node module hook that does to "use client" modules what a React Server Components bundler
 * (Next.js, Vite's RSC plugin) does: the server never evaluates them and imports client references
 * instead, which throw when called. TanStack Query's hook modules need it as much as ours: React's
 * server build has no createContext, so they cannot run there either.
 */
import { init, parse } from "es-module-lexer";

await init;

// The directive counts only in the prologue: comments and other directives may come before it.
const DIRECTIVE = /^(?:\s+|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/|(["'])use strict\1;?)*(["'])use client\2/;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (result.format !== "module" || result.source === undefined) return result;
  const source = String(result.source);
  if (!DIRECTIVE.test(source)) return result;
  const [, exports] = parse(source);
  const lines = [
    `(globalThis.clientModules ??= []).push(${JSON.stringify(url)});`,
    `const ref = (name) => Object.defineProperty(() => { throw new Error(\`client reference \${name} called on the server\`); }, "$$typeof", { value: Symbol.for("react.client.reference") });`,
    ...exports.map(({ name }) =>
      name === "default" ? `export default ref("default");` : `export const ${name} = ref(${JSON.stringify(name)});`,
    ),
  ];
  return { format: "module", source: lines.join("\n"), shortCircuit: true };
}
