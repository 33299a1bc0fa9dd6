// Sucrase's tokenizer is not in its typed public API; these are the few members used, as of the
// exactly pinned 3.35.1 (import-statements.ts). `#sucrase/*` is package.json's "imports": Sucrase's
// ES build for bundlers, its CommonJS one for Node (whose loader cannot run the ES build), so that
// an app's bundle holds one copy of Sucrase, not the ES build for `transform` beside the CommonJS
// parser.
declare module "#sucrase/index.js" {
  export { transform } from "sucrase";
}

declare module "#sucrase/parser/index.js" {
  export type Token = {
    type: number;
    contextualKeyword: number;
    start: number;
    end: number;
    /** True inside type annotations and type declarations, which emit no code. */
    isType: boolean;
  };
  export function parse(input: string, isJSXEnabled: boolean, isTypeScriptEnabled: boolean, isFlowEnabled: boolean): { tokens: Token[] };
}

declare module "#sucrase/parser/tokenizer/types.js" {
  export const TokenType: {
    readonly string: number;
    readonly name: number;
    readonly braceL: number;
    readonly braceR: number;
    readonly parenL: number;
    readonly parenR: number;
    readonly eq: number;
    readonly comma: number;
    readonly dot: number;
    readonly star: number;
    readonly _import: number;
    readonly _export: number;
    readonly _default: number;
    readonly _as: number;
    readonly backQuote: number;
    readonly template: number;
  };
}

declare module "#sucrase/parser/tokenizer/keywords.js" {
  export const ContextualKeyword: { readonly _from: number; readonly _type: number; readonly _as: number; readonly _require: number };
}
