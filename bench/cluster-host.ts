import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onProcessExit } from "../server/cluster/child.ts";
import type { HostReply } from "./cluster-host-process.ts";

const SCRIPT = fileURLToPath(new URL("./cluster-host-process.ts", import.meta.url));

export type HostProcess = {
  url(path: string): string;
  /** Requests the host received per path, for the paths under `prefix` (counted in the host process). */
  counts(prefix: string): Promise<Map<string, number>>;
  close(): Promise<void>;
};

/** Starts cluster-host-process.ts in a child process and resolves once it listens on 127.0.0.1. */
export async function startHostProcess(timeoutMs = 20_000): Promise<HostProcess> {
  const child = fork(SCRIPT, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const cancel = onProcessExit(() => void child.kill("SIGKILL"));
  const exited = new Promise<void>((resolve) => child.once("exit", () => (cancel(), resolve())));
  const waiting = new Map<number, (counts: Record<string, number>) => void>();
  let nextId = 0;
  let failure: Error | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`counting host did not listen within ${timeoutMs} ms`)), timeoutMs);
    child.on("message", (reply: HostReply) => {
      if (reply.type === "listening") {
        clearTimeout(timer);
        resolve(reply.port);
      } else if (reply.type === "counts") waiting.get(reply.id)?.(reply.counts);
      else failure = new Error(reply.message);
    });
    void exited.then(() => reject(new Error(`counting host exited (${child.exitCode ?? child.signalCode}) before it listened`)));
  });
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    counts(prefix) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, (counts) => (waiting.delete(id), resolve(new Map(Object.entries(counts)))));
        void exited.then(() => reject(new Error("counting host exited before it answered")));
        child.send({ type: "counts", id, prefix });
      });
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.disconnect();
      await exited;
    },
  };
}
