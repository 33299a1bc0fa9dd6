/**
 * README, "Two commands": "`.ci/run` installs Debian's chromium, redis-server and postgresql when
 * missing, then runs `npm ci && npm test`." The script is run as written, from a copy whose
 * absolute paths point into a scratch root (so "missing" can be staged), with `apt-get` and `npm`
 * stubs first on PATH that log their arguments and succeed or fail on demand.
 */
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGES = ["chromium", "redis-server", "postgresql"];
const dirs: string[] = [];
afterEach(() => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))));

/** What the machine has: the paths the script checks for each package, made under the scratch root. */
const HAS: Record<string, string> = {
  chromium: "usr/bin/chromium",
  "redis-server": "usr/bin/redis-server",
  postgresql: "usr/lib/postgresql/15/bin/pg_ctl",
};

async function run(installed: string[], failing: string[] = []): Promise<{ code: number; calls: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "shared-fetch-ci-run-"));
  dirs.push(dir);
  const fake = join(dir, "machine");
  for (const name of installed) {
    await mkdir(join(fake, HAS[name]!, ".."), { recursive: true });
    await writeFile(join(fake, HAS[name]!), "#!/bin/sh\n", { mode: 0o755 });
  }
  const script = (await readFile(join(root, ".ci/run"), "utf8"))
    .replaceAll(" /usr/", ` ${fake}/usr/`)
    .replaceAll("'/usr/", `'${fake}/usr/`);
  // The substitution must have reached every absolute path the script checks.
  expect(script).not.toMatch(/[ '"]\/usr\//);
  const repo = join(dir, "repo");
  await mkdir(join(repo, ".ci"), { recursive: true });
  await writeFile(join(repo, ".ci/run"), script, { mode: 0o755 });
  const stubs = join(dir, "stubs");
  await mkdir(stubs);
  const log = join(dir, "calls.log");
  for (const tool of ["apt-get", "npm"]) {
    const file = join(stubs, tool);
    await writeFile(
      file,
      `#!/bin/sh\necho "${tool} $* @ $(pwd)" >> "${log}"\ncase " ${failing.join(" ")} " in *" ${tool}:$1 "*) exit 3;; esac\nexit 0\n`,
    );
    await chmod(file, 0o755);
  }
  // Run from elsewhere: the script finds the repository by its own location.
  const code = await new Promise<number>((resolve) => {
    execFile("bash", [join(repo, ".ci/run")], { cwd: dir, env: { ...process.env, PATH: `${stubs}:${process.env.PATH}` } }, (error) =>
      resolve(error ? Number((error as { code?: number }).code ?? 1) : 0),
    );
  });
  const calls = (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
  return { code, calls: calls.map((line) => line.replace(` @ ${repo}`, "")) };
}

describe("README, Two commands: .ci/run", () => {
  it("on a machine with none of the three, installs chromium, redis-server and postgresql, then runs npm ci and npm test", async () => {
    const { code, calls } = await run([]);
    expect(code).toBe(0);
    expect(calls).toEqual(["apt-get update", `apt-get install -y ${PACKAGES.join(" ")}`, "npm ci", "npm test"]);
  });

  it("installs only what is missing, and nothing on a machine that has all three", async () => {
    expect((await run(["chromium", "postgresql"])).calls).toEqual([
      "apt-get update",
      "apt-get install -y redis-server",
      "npm ci",
      "npm test",
    ]);
    expect((await run(["redis-server"])).calls).toEqual(["apt-get update", "apt-get install -y chromium postgresql", "npm ci", "npm test"]);
    expect((await run(PACKAGES)).calls).toEqual(["npm ci", "npm test"]);
  });

  it("runs in the repository whatever the caller's directory, and stops at the first failure (npm ci && npm test)", async () => {
    const all = await run(PACKAGES);
    expect(all.calls.every((line) => !line.includes(" @ "))).toBe(true); // each ran in the repository
    const failedCi = await run(PACKAGES, ["npm:ci"]);
    expect(failedCi.code).not.toBe(0);
    expect(failedCi.calls).toEqual(["npm ci"]);
    const failedTest = await run(PACKAGES, ["npm:test"]);
    expect(failedTest.code).not.toBe(0);
    const failedInstall = await run([], ["apt-get:install"]);
    expect(failedInstall.code).not.toBe(0);
    expect(failedInstall.calls).toEqual(["apt-get update", `apt-get install -y ${PACKAGES.join(" ")}`]);
  });
});
