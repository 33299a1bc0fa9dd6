#!/usr/bin/env node
// `npm run lint`'s package half: packs the package once (prepack builds it) and checks the
// tarball a user would get, not the work tree: publint --strict, then attw for every resolver.
//
// attw's one ignored rule, cjs-resolves-to-esm, is the package being ESM-only on purpose (see
// README, "Package"): a CommonJS build would load a second copy of Yjs beside the app's.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const windows = process.platform === "win32";
const npm = windows ? "npm.cmd" : "npm";
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}${windows ? ".cmd" : ""}`, import.meta.url));
const run = (command, args) => execFileSync(command, args, { stdio: "inherit", shell: windows });
const dir = mkdtempSync(join(tmpdir(), "shared-fetch-lint-"));
try {
  const [{ filename }] = JSON.parse(
    execFileSync(npm, ["pack", "--json", "--pack-destination", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }),
  );
  const tarball = join(dir, filename);
  run(bin("publint"), ["--strict", tarball]);
  run(bin("attw"), [tarball, "--ignore-rules", "cjs-resolves-to-esm"]);
} catch (error) {
  // The tool already printed its findings; a stack trace into this script would only bury them.
  if (typeof error?.status !== "number") throw error;
  process.exitCode = error.status;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
