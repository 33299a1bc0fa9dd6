import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onProcessExit } from "../server/cluster/child.ts";
import type { WatcherReply, WatcherRequest } from "./cluster-watcher-process.ts";

const SCRIPT = fileURLToPath(new URL("./cluster-watcher-process.ts", import.meta.url));

export type Watcher = {
  /** Joins `room` (leaving the previous one) and resolves once synced. */
  join(request: Omit<Extract<WatcherRequest, { type: "join" }>, "type">): Promise<void>;
  /** Every [clientID, clock reached, wall ms] the watcher saw in the room so far. */
  log(): Promise<[number, number, number][]>;
  leave(): Promise<void>;
  close(): Promise<void>;
};

/** Starts cluster-watcher-process.ts; one request at a time (the bench awaits each). */
export function startWatcher(timeoutMs = 60_000): Watcher {
  const child = fork(SCRIPT, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const cancel = onProcessExit(() => void child.kill("SIGKILL"));
  const exited = new Promise<void>((resolve) => child.once("exit", () => (cancel(), resolve())));
  const ask = <T extends WatcherReply["type"]>(request: WatcherRequest, expect: T): Promise<Extract<WatcherReply, { type: T }>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`watcher: no "${expect}" within ${timeoutMs} ms`)), timeoutMs);
      const onMessage = (reply: WatcherReply): void => {
        if (reply.type === "error") done(new Error(reply.message));
        else if (reply.type === expect) done(undefined, reply as Extract<WatcherReply, { type: T }>);
      };
      const onExit = (): void => done(new Error(`watcher exited (${child.exitCode ?? child.signalCode}) while asked for "${expect}"`));
      function done(error: Error | undefined, reply?: Extract<WatcherReply, { type: T }>): void {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        if (error) reject(error);
        else resolve(reply!);
      }
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send(request);
    });
  return {
    join: async (request) => void (await ask({ type: "join", ...request }, "synced")),
    log: async () => (await ask({ type: "log" }, "log")).entries,
    leave: async () => void (await ask({ type: "leave" }, "left")),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.disconnect();
      await exited;
    },
  };
}
