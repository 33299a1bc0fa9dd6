/**
 * Setup file of the React projects other than `unit` (vitest.config.ts, reactProject): the React
 * tests again on another React, an npm alias such as react-18 / react-dom-18. vitest.config.ts
 * aliases the ESM imports that Vite transforms; this makes the CommonJS requires inside
 * externalised packages (react-dom-18 requiring "react") find the same copy, so one React instance
 * serves the whole test.
 */
import Module from "node:module";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The alias of `react` this project runs on; `react-dom` is its `react-dom-…` twin. */
    reactAlias: string;
  }
}

const react = inject("reactAlias");
const dom = react.replace(/^react/, "react-dom");
type Resolver = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolver };
const original = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
  const mapped = request.replace(/^react-dom(?=$|\/)/, dom).replace(/^react(?=$|\/)/, react);
  return original.call(this, mapped, ...rest);
};
