/**
 * The README points at the test that pins each claim and at the source that holds each part
 * ("`test/react/persister-reload.test.tsx`", "`src/core/locks.ts`"). A file renamed or removed
 * leaves a claim that names no proof: every such path it names must exist.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const named = [
  ...new Set(
    [...readme.matchAll(/`((?:test|src|stories|bench|sim|server|devtools|scripts|bin)\/[\w./-]+\.(?:tsx?|mjs|js|mdx))`/g)].map(
      (m) => m[1]!,
    ),
  ),
];

describe("README: the files it names as proof exist", () => {
  it("names many test and source files", () => {
    expect(named.filter((p) => p.startsWith("test/")).length).toBeGreaterThan(100);
    expect(named.some((p) => p.startsWith("src/"))).toBe(true);
  });

  it("every one of them is in the repository", () => {
    expect(named.filter((p) => !existsSync(join(root, p)))).toEqual([]);
  });
});
