/**
 * `npm start` runs scripts/server.mjs beside Storybook. When its port is taken (a sync server
 * already running, another app on 1234), the user gets one line naming the address and what to
 * do, and the process exits 1 (start.mjs then keeps Storybook running without it).
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";

const script = fileURLToPath(new URL("../../scripts/server.mjs", import.meta.url));
let taken: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => taken?.close(resolve) ?? resolve(undefined));
});

it("sync server: a port already in use is one clear line and exit code 1, no stack trace", async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken!.listen(0, "127.0.0.1", resolve));
  const port = (taken.address() as AddressInfo).port;
  const child = spawn(process.execPath, [script], { env: { ...process.env, HOST: "127.0.0.1", PORT: String(port) }, stdio: "pipe" });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  expect(code).toBe(1);
  expect(stderr.trim().split("\n")).toEqual([
    `sync server: PORT=${port}: 127.0.0.1:${port} is already in use (another sync server?); set PORT to another port (PORT=0 picks a free one)`,
  ]);
}, 20_000);
