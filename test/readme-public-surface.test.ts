/**
 * README, "Public surface": what the main entry exports is listed there. A name the entry exports
 * that the README never names is surface a reader cannot know of (or an export left in by
 * mistake); a name the README lists that the entry lacks is a promise the package breaks.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as api from "../src/index.ts";

const readme = readFileSync(join(fileURLToPath(new URL("..", import.meta.url)), "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Public surface"), readme.indexOf("\n## ", readme.indexOf("## Public surface") + 1));

describe("README, Public surface: the main entry's values", () => {
  it("every value `shared-fetch` exports is named in the section", () => {
    const unnamed = Object.keys(api).filter((name) => !section.includes(`\`${name}\``));
    expect(unnamed).toEqual([]);
  });

  it("every function, class or DEFAULT_ the section names as the main entry's is exported by it", () => {
    const entry = section.slice(0, section.indexOf("`store.inspect()`"));
    const named = [...entry.matchAll(/`([A-Za-z_]\w*)`/g)]
      .map((m) => m[1]!)
      .filter((name) => /^(use|create|connect|clear|shared|DEFAULT_|SharedFetch|get)/.test(name) || name === "connectionLostOrigin");
    expect(named.length).toBeGreaterThan(15); // the section was found and read
    expect(named.filter((name) => !(name in api))).toEqual([]);
  });
});

describe("README, Public surface: the subpath entries", () => {
  const pkg = JSON.parse(readFileSync(join(fileURLToPath(new URL("..", import.meta.url)), "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };

  it("every subpath package.json exports is named in the section", () => {
    const subpaths = Object.keys(pkg.exports).filter((p) => p !== ".");
    expect(subpaths.length).toBeGreaterThan(5);
    expect(subpaths.map((p) => `shared-fetch/${p.slice(2)}`).filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });

  it("every value `shared-fetch/hocuspocus` and `shared-fetch/worker` export is named in the section", async () => {
    const entries = [await import("../src/hocuspocus/index.ts"), await import("../src/worker/index.ts")];
    expect(entries.flatMap((entry) => Object.keys(entry)).filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
