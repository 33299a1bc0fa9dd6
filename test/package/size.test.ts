import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = join(root, "node_modules", ".bin", process.platform === "win32" ? "size-limit.cmd" : "size-limit");

type Result = { name: string; passed: boolean; size: number; sizeLimit: number };
// The budgets themselves, as size-limit reads them (a plain JS config: imported by URL).
const config = new URL("../../.size-limit.js", import.meta.url).href;
const checks = ((await import(config)) as { default: { name: string; path: string }[] }).default;

/** The README's "Bundle size" table: each row's min+gz figure and budget, in bytes. */
function readmeRows(): [number, number][] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Bundle size"), readme.indexOf("\n## ", readme.indexOf("## Bundle size") + 3));
  const bytes = (cell: string): number => {
    const m = /^([\d.]+) (KiB|B)$/.exec(cell.trim());
    if (!m) throw new Error(`README Bundle size table: "${cell}" is not a size in KiB or B`);
    return Number(m[1]) * (m[2] === "KiB" ? 1024 : 1);
  };
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `") || line.startsWith("| + ") || line.startsWith("| the program"))
    .map((line) => {
      const cells = line.split("|").slice(1, -1);
      return [bytes(cells.at(-2)!), bytes(cells.at(-1)!)];
    });
}

describe("size budgets (.size-limit.js)", () => {
  it("measures the files the tarball ships", () => {
    // global-setup's `npm pack` rebuilt dist/: the budgets below read it in place.
    for (const { path } of checks)
      expect(readFileSync(join(root, path)).equals(readFileSync(join(inject("packedDir"), path))), path).toBe(true);
  });

  it("keeps the main entry, the tabs and peers connectors, the devtools and the lazy resolver within budget", async () => {
    // size-limit exits 1 when a budget is blown; its JSON says which, so read it either way.
    const { stdout } = await promisify(execFile)(bin, ["--json"], { cwd: root, shell: process.platform === "win32" }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? "[]" }),
    );
    const results = JSON.parse(stdout) as Result[];
    expect(results.map((r) => r.name)).toEqual(checks.map((c) => c.name));
    console.log(
      results
        .map((r) => `${r.name.padEnd(50)} ${(r.size / 1024).toFixed(1)} KiB of ${(r.sizeLimit / 1024).toFixed(1)} KiB (min+gz)`)
        .join("\n"),
    );
    expect(readmeRows(), "README's Bundle size table: one row per budget, in order").toHaveLength(results.length);
    readmeRows().forEach(([shown, budget], i) => {
      const r = results[i]!;
      // The README quotes each row's figure and budget: a figure that drifted by more than 0.15 KiB is a wrong claim.
      expect(Math.abs(shown - r.size), `${r.name}: README says ${shown} B, measured ${r.size} B`).toBeLessThanOrEqual(0.15 * 1024);
      expect(budget, `${r.name}: README's budget`).toBeCloseTo(r.sizeLimit, -2);
    });
    for (const r of results) {
      // A real bundle, not an empty entry — except the gated devtools row, whose point is to be empty.
      if (!r.name.startsWith("devtools in a production build")) expect(r.size, r.name).toBeGreaterThan(1024);
      expect(r, r.name).toMatchObject({ passed: true });
    }
  });
});
