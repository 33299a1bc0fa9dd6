// Sucrase's tokenizer is not in its typed public API; these are the few members used, as of the
// exactly pinned 3.35.1 (import-statements.ts).
declare module "sucrase/dist/parser/index.js" {
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

declare module "sucrase/dist/parser/tokenizer/types.js" {
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

declare module "sucrase/dist/parser/tokenizer/keywords.js" {
  export const ContextualKeyword: { readonly _from: number; readonly _type: number; readonly _as: number; readonly _require: number };
}
