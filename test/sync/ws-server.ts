import { spawn } from "node:child_process";
import { join } from "node:path";

// Not `new URL(…, import.meta.url)`: under jsdom, Vite turns that into an http: URL.
const script = join(import.meta.dirname, "../../bin/sync-server.mjs");

export type SyncServer = {
  /** e.g. "ws://127.0.0.1:40123" */
  url: string;
  /** SIGTERM, then resolves once the server exited with code 0 (rejects otherwise). */
  close(): Promise<void>;
};

/**
 * Runs bin/sync-server.mjs on 127.0.0.1 with a free port, in a child process: the server module
 * keeps its docs in a module-level map, and a process of its own also proves the script itself
 * starts, logs its address and exits cleanly. `file`: another copy of it (the packed package's);
 * `port`: a port chosen up front, so that a restart comes back where the clients reconnect.
 */
export function startSyncServer(file = script, port = 0): Promise<SyncServer> {
  const child = spawn(process.execPath, [file], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const code = await exited;
    if (code !== 0) throw new Error(`sync server exited with ${code}: ${stderr}`);
  };

  return new Promise((resolve, reject) => {
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /listening on (ws:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve({ url: match[1], close });
    });
    void exited.then((code) => reject(new Error(`sync server exited early (${code}): ${stderr}`)));
    child.once("error", reject);
  });
}
