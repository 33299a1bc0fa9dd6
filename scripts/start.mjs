#!/usr/bin/env node
// `npm start`: Storybook on 127.0.0.1:6006 (the next free port if taken: it prints the URL) and the
// y-websocket sync server on 127.0.0.1:1234, for trying connectPeers from an app (no scenario
// needs it: they sync in-page); stopping Storybook stops both.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const children = [];

function run(label, command, args, { optional = false } = {}) {
  const child = spawn(command, args, {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: "1" },
  });
  children.push(child);
  child.on("exit", (code, signal) => {
    if (optional && code !== 0 && !stopping) {
      console.warn(`[start] ${label} exited (${signal ?? code}); Storybook keeps running without it`);
      return;
    }
    stop(code ?? 0);
  });
  return child;
}

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  setTimeout(() => process.exit(code), 500).unref();
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

run("sync server", process.execPath, ["bin/sync-server.mjs"], { optional: true });
run("storybook", bin("storybook"), [
  "dev",
  "-p",
  "6006",
  "--host",
  "127.0.0.1",
  "--ci",
  "--no-open",
  "--disable-telemetry",
  "--no-version-updates",
  "--initial-path=/docs/introduction--docs",
]);
