import { spawn } from "node:child_process";

/**
 * Runs Node with `args` until it exits (a script expected to stop at start): its exit code and its
 * output, stdout and stderr together; SIGKILLed, with code null, if still running after
 * `killAfterMs` (10 s).
 */
export async function runToExit(
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; killAfterMs?: number },
): Promise<{ code: number | null; output: string }> {
  const { killAfterMs = 10_000, ...spawnOptions } = options;
  const child = spawn(process.execPath, args, { ...spawnOptions, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  return { code, output };
}
