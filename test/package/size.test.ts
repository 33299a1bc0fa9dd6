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
    for (const r of results) {
      // A real bundle, not an empty entry — except the gated devtools row, whose point is to be empty.
      if (!r.name.startsWith("devtools in a production build")) expect(r.size, r.name).toBeGreaterThan(1024);
      expect(r, r.name).toMatchObject({ passed: true });
    }
  });
});
