import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const windows = process.platform === "win32";

declare module "vitest" {
  export interface ProvidedContext {
    /** The tarball `npm pack` made of the work tree (prepack built it). */
    packedTarball: string;
    /** That tarball unpacked: the package a user would install. */
    packedDir: string;
  }
}

/** Packs the package once for the whole `package` project; removes tarball and copy afterwards. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "shared-fetch-pack-"));
  try {
    const { stdout } = await run(windows ? "npm.cmd" : "npm", ["pack", "--json", "--pack-destination", dir], {
      cwd: root,
      shell: windows,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    const tarball = join(dir, filename);
    const unpacked = join(dir, "unpacked");
    await mkdir(unpacked);
    await run("tar", ["-xzf", tarball, "-C", unpacked]);
    project.provide("packedTarball", tarball);
    project.provide("packedDir", join(unpacked, "package"));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return () => rm(dir, { recursive: true, force: true });
}
