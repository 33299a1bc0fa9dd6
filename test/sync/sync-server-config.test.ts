/**
 * README, Scripts: `npm run server` is the sync server alone (bin/sync-server.mjs), on HOST/PORT.
 * Error messages: a bad value is refused with a clear message naming it. Pinned here: a PORT that
 * is not a port, or is taken, stops the script with one line naming PORT and the value, instead
 * of a stack trace (`PORT=abc`) or a server quietly on another port (`PORT=12abc` listened on 12).
 */
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { runToExit } from "../harness/run-to-exit.ts";

const script = fileURLToPath(new URL("../../bin/sync-server.mjs", import.meta.url));

/** Runs the script with PORT=`port` (see runToExit). */
function run(port: string): Promise<{ code: number | null; output: string }> {
  return runToExit([script], { env: { ...process.env, HOST: "127.0.0.1", PORT: port } });
}

describe("bin/sync-server.mjs refuses a bad PORT at start, naming it", () => {
  it.each(["abc", "12abc", "1.5", "-1", "70000"])(
    "PORT=%s",
    async (value) => {
      const { code, output } = await run(value);
      expect(code).toBe(1);
      expect(output.trim()).toBe(`sync server: environment variable PORT must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
    },
    15_000,
  );

  it("a PORT another process listens on", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => void taken.close());
    const port = (taken.address() as AddressInfo).port;
    const { code, output } = await run(String(port));
    expect(code).toBe(1);
    expect(output.trim()).toBe(
      `sync server: PORT=${port}: 127.0.0.1:${port} is already in use (another sync server?); set PORT to another port (PORT=0 picks a free one)`,
    );
  }, 15_000);

  it("with neither HOST nor PORT set, 127.0.0.1:1234: the server `npm start` runs beside Storybook (README, Scripts)", async () => {
    // 1234 held here (or by another process already), so the default is read from the refusal and
    // nothing is served on a port other runs may use.
    const held = createServer();
    await new Promise<void>((resolve) => held.once("error", () => resolve()).listen(1234, "127.0.0.1", resolve));
    onTestFinished(() => void held.close());
    const { HOST: _host, PORT: _port, ...env } = process.env;
    const { code, output } = await runToExit([script], { env, killAfterMs: 5_000 });
    expect(output.trim()).toBe(
      "sync server: PORT=1234: 127.0.0.1:1234 is already in use (another sync server?); set PORT to another port (PORT=0 picks a free one)",
    );
    expect(code).toBe(1);
  }, 15_000);
});

describe("bin/sync-server.mjs reads its configuration from HOST and PORT alone: --help says so, an argument is refused", () => {
  const runWith = (args: string[]) =>
    runToExit([script, ...args], { env: { ...process.env, HOST: "127.0.0.1", PORT: "0" }, killAfterMs: 5_000 });

  it.each(["--help", "-h"])(
    "%s prints the usage and exits 0, serving nothing",
    async (flag) => {
      const { code, output } = await runWith([flag]);
      expect(code).toBe(0);
      expect(output).toMatch(/^Usage: shared-fetch-server\n/);
      expect(output).toContain("HOST");
      expect(output).toContain("PORT");
      expect(output).not.toContain("listening");
    },
    15_000,
  );

  it.each([["--port", "4000"], ["4000"], ["--host=0.0.0.0"]])(
    "%s: refused, naming it, instead of a server quietly on 127.0.0.1:1234",
    async (...args) => {
      const { code, output } = await runWith(args);
      expect(code).toBe(1);
      expect(output.trim()).toBe(
        `sync server: takes no arguments, got ${JSON.stringify(args[0])}: set HOST and PORT in the environment (e.g. PORT=4000 shared-fetch-server); --help says more`,
      );
    },
    15_000,
  );
});
