/**
 * Setup file of the `react18` vitest project: the React tests again, on React 18.3 (the npm
 * aliases react-18 / react-dom-18). vitest.config.ts aliases the ESM imports that Vite transforms;
 * this makes the CommonJS requires inside externalised packages (react-dom-18 requiring "react")
 * find the same React 18 copy, so one React instance serves the whole test.
 */
import Module from "node:module";

type Resolver = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolver };
const original = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
  const mapped = request.replace(/^react-dom(?=$|\/)/, "react-dom-18").replace(/^react(?=$|\/)/, "react-18");
  return original.call(this, mapped, ...rest);
};
