import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, inject, it } from "vitest";

const dir = inject("packedDir");
const files = execFileSync("tar", ["-tzf", inject("packedTarball")], { encoding: "utf8" })
  .split("\n")
  .filter(Boolean)
  .map((f) => f.replace(/^package\//, ""));
const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;

describe("the packed tarball", () => {
  it("holds the build of both entries with their types, the LICENSE and the README", () => {
    for (const f of [
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/devtools/index.js",
      "dist/devtools/index.d.ts",
      "LICENSE",
      "README.md",
      "package.json",
    ]) {
      expect(files, f).toContain(f);
    }
    expect(readFileSync(join(dir, "LICENSE"), "utf8")).toMatch(/^MIT License/);
  });

  it("ships no tests, stories, benchmarks or scripts", () => {
    expect(files.filter((f) => /\.(test|stories)\.|^(test|stories|bench|scripts|\.storybook)\//.test(f))).toEqual([]);
  });

  it("has source maps whose every source is in the tarball (go-to-definition reaches the source)", () => {
    const maps = files.filter((f) => f.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(100);
    const unreachable: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot = "" } = JSON.parse(readFileSync(join(dir, map), "utf8")) as { sources: string[]; sourceRoot?: string };
      for (const source of sources) {
        const path = resolve(dirname(join(dir, map)), sourceRoot, source);
        if (!existsSync(path)) unreachable.push(`${map} → ${source}`);
      }
    }
    expect(unreachable).toEqual([]);
  });

  it("points every export, types and typesVersions target at a file it holds", () => {
    const targets = JSON.stringify([pkg.exports, pkg.main, pkg.types, pkg.typesVersions]).match(/"\.?\/?dist\/[^"]+"/g) ?? [];
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(files, target).toContain(JSON.parse(target).replace(/^\.\//, ""));
  });

  it("says where it lives: repository, homepage, bugs, keywords, license", () => {
    expect(pkg).toMatchObject({
      license: "MIT",
      repository: { type: "git" },
      bugs: { url: expect.any(String) },
      homepage: expect.any(String),
    });
    expect((pkg.keywords as string[]).length).toBeGreaterThan(3);
  });
});
