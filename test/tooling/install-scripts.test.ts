/**
 * README, "Two commands": "`npm install` prints no install-script warning: the two dependencies
 * with an install script are listed in package.json's `allowScripts` — esbuild approved […], msw
 * denied". Read from the lockfile, which marks every package npm would run a script for: a new
 * dependency (or a new version) with one and no entry in `allowScripts` brings the warning back.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const read = (file: string) => JSON.parse(readFileSync(join(root, file), "utf8")) as Record<string, unknown>;

describe("README, Two commands: every dependency with an install script is decided in allowScripts", () => {
  it("the lockfile's packages with an install script are esbuild and msw, esbuild approved and msw denied", () => {
    const packages = read("package-lock.json").packages as Record<string, { hasInstallScript?: boolean }>;
    const withScript = Object.entries(packages)
      .filter(([path, entry]) => path !== "" && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
    const allowScripts = read("package.json").allowScripts as Record<string, boolean>;
    expect([...new Set(withScript)].sort()).toEqual(Object.keys(allowScripts).sort());
    expect(allowScripts).toEqual({ esbuild: true, msw: false });
  });
});
