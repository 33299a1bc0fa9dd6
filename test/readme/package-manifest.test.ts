/**
 * README, "Usage" and "Package": what they say of the manifest. The peers named in Usage (React
 * 18.2 or later, 19 too, tested at both floors; @tanstack/react-query 5.108.4 or later; Yjs 13.6;
 * @hocuspocus/provider only for its entry), "Peer range: `react ^18.2 || ^19`", Node ≥ 20.19 as
 * `engines`, ESM only with one `default` target per entry (so `require` of Node ≥ 20.19 finds it),
 * and `typesVersions` giving node10 the `types` of every subpath `exports` names. "peers: React
 * 18.2 or later (19 too)": the floors, 18.2.0 and 19.0.0, are tested as well as a later 18 and 19.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
// Whitespace folded: a rewrapped paragraph says the same.
const readme = readFileSync(join(root, "README.md"), "utf8").replace(/\s+/g, " ");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  type: string;
  license: string;
  engines: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  exports: Record<string, string | Record<string, string>>;
  types: string;
  typesVersions: Record<string, Record<string, string[]>>;
};

describe("README, Usage: the peers", () => {
  it("React 18.2 or later (19 too), @tanstack/react-query 5.108.4 or later, Yjs 13.6: the manifest's peer ranges", () => {
    expect(readme).toContain(
      "peers: React 18.2 or later (19 too; tested at both floors, 18.2.0 and 19.0.0, and on 18.3 and 19.3), `@tanstack/react-query` 5.108.4 or later",
    );
    expect(pkg.peerDependencies).toMatchObject({ react: "^18.2 || ^19", "@tanstack/react-query": "^5.108.4", yjs: "^13.6" });
    expect(readme).toContain(`Peer range: \`react ${pkg.peerDependencies.react}\``);
  });

  it("@hocuspocus/provider only for shared-fetch/hocuspocus: an optional peer", () => {
    expect(pkg.peerDependenciesMeta["@hocuspocus/provider"]?.optional).toBe(true);
    expect(Object.keys(pkg.peerDependencies).filter((name) => !pkg.peerDependenciesMeta[name]?.optional)).toEqual(
      expect.arrayContaining(["react", "@tanstack/react-query", "yjs"]),
    );
  });
});

/** The version of `dir` in node_modules that the tests load (an alias such as react-18 included). */
const installed = (dir: string) =>
  JSON.parse(readFileSync(join(root, "node_modules", dir, "package.json"), "utf8")) as { name: string; version: string };
const minor = (version: string) => version.replace(/^\^/, "").split(".").slice(0, 2).join(".");

describe("peer ranges claim only what the tests run on", () => {
  // @tanstack/react-query 5.62 (the floor once declared) lacks MutationFunctionContext, which the
  // shipped declarations import, and orders UseInfiniteQueryOptions' parameters otherwise: an app
  // on it failed to compile against them, and the React tests failed on it at run time too.
  it("@tanstack/react-query, yjs and @hocuspocus/provider: the range's floor is the minor of the version installed for the tests", () => {
    for (const name of ["@tanstack/react-query", "yjs", "@hocuspocus/provider"]) {
      const range = pkg.peerDependencies[name]!;
      expect(range, name).toMatch(/^\^\d+\.\d+(\.\d+)?$/);
      expect(minor(range), `${name} ${range} against the tested ${installed(name).version}`).toBe(minor(installed(name).version));
    }
  });

  it("react: each part of the range runs in a test project at its floor, exactly, and at a later release (vitest.config.ts, reactProject)", () => {
    const tested = ["react", "react-18", "react-18-2", "react-19-0"]
      .map(installed)
      .map(({ name, version }) => (expect(name).toBe("react"), version));
    for (const part of pkg.peerDependencies.react!.split("||").map((part) => part.trim().replace(/^\^/, ""))) {
      const floor = [...part.split("."), "0", "0"].slice(0, 3).join(".");
      const major = floor.split(".")[0]!;
      expect(tested, `the floor of ^${part}`).toContain(floor);
      expect(
        tested.filter((version) => version !== floor && version.split(".")[0] === major),
        `a later ${major}.x`,
      ).not.toEqual([]);
    }
    const majors = pkg.peerDependencies.react!.split("||").map((part) => part.trim().replace(/^\^/, "").split(".")[0]);
    expect([...new Set(tested.map((version) => version.split(".")[0]))].sort()).toEqual(majors.sort());
  });
});

describe("README, Package", () => {
  it("ESM only: type module, one default target per entry and no require or import condition (a CommonJS build would load Yjs twice)", () => {
    expect(pkg.type).toBe("module");
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (entry === "./package.json") continue;
      expect(Object.keys(target as Record<string, string>), entry).toEqual(["types", "default"]);
      expect((target as Record<string, string>).default, entry).toMatch(/\.js$/);
    }
  });

  it("Node ≥ 20.19 is the package's engines", () => {
    expect(readme).toContain("Node ≥ 20.19 (the package's `engines`");
    expect(pkg.engines.node).toBe(">=20.19");
  });

  it("types + typesVersions for node10: the root and every subpath land on the types `exports` names; MIT", () => {
    expect(pkg.types).toBe((pkg.exports["."] as Record<string, string>).types);
    const subpaths = Object.entries(pkg.exports).filter(([entry]) => entry !== "." && entry !== "./package.json");
    expect(subpaths.length).toBeGreaterThan(5);
    for (const [entry, target] of subpaths)
      expect(pkg.typesVersions["*"]?.[entry.slice(2)], entry).toEqual([(target as Record<string, string>).types]);
    expect(pkg.license).toBe("MIT");
  });
});
