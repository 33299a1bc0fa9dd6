import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";

const CORE = resolve(import.meta.dirname, "../src/core");
const MAX_LINES = 250;

// Issue 7, done when: "engine.ts is a thin loop over `decide`; no file in src/core is over 250 lines".
it("no file in src/core is over 250 lines", () => {
  const over = readdirSync(CORE, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => ({ name, lines: readFileSync(join(CORE, name), "utf8").split("\n").length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ name, lines }) => `src/core/${name}: ${lines} lines`);
  expect(over).toEqual([]);
});
