/**
 * README, "Two commands" and "Scripts": `npm start` is "Storybook with the scenarios on
 * http://127.0.0.1:6006 (nothing else to set up)" and "y-websocket sync server on 127.0.0.1:1234
 * and Storybook on 127.0.0.1:6006". scripts/start.mjs is run as written from a scratch copy of the
 * repository's layout, with stand-ins for Storybook and the sync server that log how they were
 * started and wait for a signal: what it starts, with which arguments, and what stops what. (The
 * sync server's own default, 127.0.0.1:1234, is test/sync/sync-server-config.test.ts's.)
 */
import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const cleanups: (() => Promise<void>)[] = [];
afterEach(() => Promise.all(cleanups.splice(0).map((f) => f())));

type Line = { who: string; event: "started" | "stopped"; pid?: number; args?: string[]; telemetry?: string | undefined };

/**
 * A stand-in that logs its start, exits with FAKE_EXIT_<WHO> at once if set, else waits: SIGTERM
 * (start.mjs stopping it) is logged, SIGUSR2 ends it as if it quit by itself.
 */
const standIn = (who: string, log: string) => `#!${process.execPath}
const { appendFileSync } = process.getBuiltinModule("node:fs");
const say = (line) => appendFileSync(${JSON.stringify(log)}, JSON.stringify({ who: ${JSON.stringify(who)}, ...line }) + "\\n");
say({ event: "started", pid: process.pid, args: process.argv.slice(2), telemetry: process.env.STORYBOOK_DISABLE_TELEMETRY });
const exit = process.env[${JSON.stringify(`FAKE_EXIT_${who.toUpperCase()}`)}];
if (exit !== undefined) process.exit(Number(exit));
process.on("SIGTERM", () => { say({ event: "stopped" }); process.exit(0); });
process.on("SIGUSR2", () => process.exit(0));
setInterval(() => {}, 1 << 30);
`;

async function start(env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), "shared-fetch-npm-start-"));
  const log = join(dir, "log.jsonl");
  await mkdir(join(dir, "scripts"));
  await mkdir(join(dir, "bin"));
  await mkdir(join(dir, "node_modules/.bin"), { recursive: true });
  await copyFile(join(root, "scripts/start.mjs"), join(dir, "scripts/start.mjs"));
  await writeFile(join(dir, "bin/sync-server.mjs"), standIn("sync", log));
  await writeFile(join(dir, "node_modules/.bin/storybook"), standIn("storybook", log), { mode: 0o755 });
  const child = spawn(process.execPath, [join(dir, "scripts/start.mjs")], {
    cwd: tmpdir(),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += String(d)));
  child.stderr!.on("data", (d: Buffer) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  cleanups.push(async () => {
    // Ctrl-C's path stops the stand-ins too; any still running after a failed test are ended here,
    // each only if its command line is still this scratch folder's (a pid may have been reused).
    if (child.exitCode === null) child.kill("SIGINT");
    await exited;
    for (const { pid } of await lines()) {
      const command = pid ? await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "") : "";
      if (command.includes(dir)) process.kill(pid!, "SIGKILL");
    }
    await rm(dir, { recursive: true, force: true });
  });
  const lines = async (): Promise<Line[]> =>
    (await readFile(log, "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  const started = async (who: string) => {
    await vi.waitFor(async () => expect((await lines()).some((l) => l.who === who && l.event === "started")).toBe(true), {
      timeout: 10_000,
    });
    return (await lines()).find((l) => l.who === who && l.event === "started")!;
  };
  return { child, exited, lines, started, output: () => output };
}

describe("README, Two commands / Scripts: npm start", () => {
  it("is scripts/start.mjs", async () => {
    const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe("node scripts/start.mjs");
  });

  it("starts the sync server (bin/sync-server.mjs, its default 127.0.0.1:1234) and Storybook dev on 127.0.0.1:6006, no telemetry; Ctrl-C stops both", async () => {
    const s = await start();
    const storybook = await s.started("storybook");
    const sync = await s.started("sync");
    expect(sync.args).toEqual([]); // host and port are the bin's defaults
    expect(storybook.args!.slice(0, 1)).toEqual(["dev"]);
    const flag = (name: string) => storybook.args![storybook.args!.indexOf(name) + 1];
    expect([flag("-p"), flag("--host")]).toEqual(["6006", "127.0.0.1"]);
    expect(storybook.args).toEqual(expect.arrayContaining(["--ci", "--no-open", "--disable-telemetry"]));
    expect(storybook.telemetry).toBe("1");
    s.child.kill("SIGINT");
    expect(await s.exited).toBe(0);
    expect(
      (await s.lines())
        .filter((l) => l.event === "stopped")
        .map((l) => l.who)
        .sort(),
    ).toEqual(["storybook", "sync"]);
  });

  it("stopping Storybook stops the sync server too, and npm start ends", async () => {
    const s = await start();
    await s.started("sync");
    process.kill((await s.started("storybook")).pid!, "SIGUSR2");
    expect(await s.exited).toBe(0);
    await vi.waitFor(async () => expect((await s.lines()).filter((l) => l.event === "stopped").map((l) => l.who)).toEqual(["sync"]));
  });

  it("a sync server that cannot start (its port taken) leaves Storybook running, with one warning: nothing else to set up", async () => {
    const s = await start({ FAKE_EXIT_SYNC: "1" });
    await s.started("storybook");
    await vi.waitFor(() => expect(s.output()).toContain("[start] sync server exited (1); Storybook keeps running without it"));
    expect(s.child.exitCode).toBeNull();
    expect((await s.lines()).filter((l) => l.event === "stopped")).toEqual([]);
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  });
});
