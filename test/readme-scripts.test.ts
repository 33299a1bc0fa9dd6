/**
 * README, "Scripts": each command the table names is a script of package.json, each vitest
 * project `npm test` is said to run is one of vitest.config.ts, and the peer dependency ranges
 * quoted under the table are package.json's own (a reader installs by them).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(root, "README.md"), "utf8");
const start = readme.indexOf("## Scripts");
const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe("README, Scripts", () => {
  it("every `npm run x` and `npm start` / `npm test` in the table is a package.json script", () => {
    const named = [...section.matchAll(/`npm (?:run ([\w:-]+)|(start|test))`/g)].map((m) => m[1] ?? m[2]!);
    expect(named).toEqual(expect.arrayContaining(["start", "test", "bench", "typecheck", "lint", "build", "server", "server:cluster"]));
    expect(named.filter((name) => !(name in pkg.scripts))).toEqual([]);
  });

  it("the projects `npm test` runs are vitest.config.ts's projects", () => {
    const row = section.split("\n").find((line) => line.startsWith("| `npm test` |"))!;
    const listed = [...row.matchAll(/`([\w.]+)` \(/g)].map((m) => m[1]!);
    const config = readFileSync(join(root, "vitest.config.ts"), "utf8");
    // A project is named inline or by its reactProject(name, …) call.
    const projects = [...config.matchAll(/^\s+name: "([\w.]+)",$|reactProject\("([\w.]+)"/gm)].map((m) => (m[1] ?? m[2])!);
    expect(listed.sort()).toEqual(projects.sort());
  });

  it("the peer dependency ranges are package.json's, the optional one said to be optional", () => {
    const line = section.slice(section.indexOf("Peer dependencies:"));
    for (const [name, range] of Object.entries(pkg.peerDependencies)) expect(line).toContain(`\`${name} ${range}\``);
    for (const [name, meta] of Object.entries(pkg.peerDependenciesMeta))
      if (meta.optional) expect(line).toMatch(new RegExp(`optional, \`${name}`));
  });
});
