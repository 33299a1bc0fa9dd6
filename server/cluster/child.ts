import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { accessSync, constants } from "node:fs";

const atExit = new Set<() => void>();
let hooked = false;
/**
 * Runs `cleanup` when this process exits, also on SIGINT/SIGTERM (which skip "exit" handlers unless
 * handled). One listener for all, however many servers a run starts. Returns the way to cancel.
 */
export function onProcessExit(cleanup: () => void): () => void {
  if (!hooked) {
    hooked = true;
    const runAll = (): void => {
      for (const fn of [...atExit]) fn();
      atExit.clear();
    };
    process.once("exit", runAll);
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      // Only when nobody else handles the signal (a CLI with its own orderly stop keeps it).
      if (process.listenerCount(signal) === 0) process.once(signal, () => (runAll(), process.exit(130)));
    }
  }
  atExit.add(cleanup);
  return () => void atExit.delete(cleanup);
}

/** A child process we started, with the output seen so far (for error messages). */
export type Child = { process: ChildProcess; output(): string; exited: Promise<number | null> };

/** Throws a message that says what to install when a Debian binary the cluster needs is absent. */
export function requireBinary(path: string, debianPackage: string): void {
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(`${path} is missing: the cluster needs Debian's ${debianPackage} (apt-get install -y ${debianPackage})`);
  }
}

/**
 * Spawns `command` and resolves once a line of its output matches `ready` (rejects if it exits
 * first or stays silent for `timeoutMs`). Children are also killed when this process exits, so a
 * crashed test run leaves no server behind.
 */
export function spawnUntil(
  label: string,
  command: string,
  args: string[],
  ready: RegExp,
  options: SpawnOptions = {},
  timeoutMs = 20_000,
): Promise<Child & { match: RegExpExecArray }> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const cancel = onProcessExit(() => void child.kill("SIGKILL"));
  void exited.then(cancel);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${label} did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      const match = ready.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      resolve({ process: child, output: () => output, exited, match });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`${label} could not be spawned: ${error.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code ?? child.signalCode}) before it was ready:\n${output}`));
    });
  });
}

/** SIGKILL (no goodbye to anyone) and wait until the process is really gone. */
export async function killHard(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
  await child.exited;
}
