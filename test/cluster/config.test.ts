/**
 * README, Scaling out ("Run it"): the instances and `npm run server:cluster` are configured by
 * environment (ROOM_SECRET, INSTANCES, …). A bad value, or a Postgres without the documents
 * table, stops the process at start with a message naming the variable and the value — never a
 * secret's value nor DATABASE_URL's password — instead of failing at the first client.
 */
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { INSTANCE, instanceEnv, ROOT } from "../../server/cluster/cluster.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { DEMO_SECRET } from "../../server/cluster/tokens.ts";
import { runToExit } from "../harness/run-to-exit.ts";
import { useCluster } from "./harness.ts";

const MAIN = fileURLToPath(new URL("../../server/cluster/main.ts", import.meta.url));

const env = useCluster({ instances: 1 });

/** Runs `script` with an otherwise valid instance environment plus `overrides` (see runToExit). */
async function run(script: string, overrides: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const cluster = env.cluster();
  const instance = instanceEnv({
    name: "config",
    port: await freePort(),
    redisPort: cluster.redis.port,
    databaseUrl: cluster.postgres.connectionString,
    secret: DEMO_SECRET,
  });
  return runToExit(["--import", "tsx", script], { cwd: ROOT, env: { ...instance, ...overrides } });
}

describe("instance.ts refuses a bad configuration at start, naming the variable and the value", () => {
  it.each([
    ["PORT", "abc"],
    ["PORT", "0"],
    ["PORT", "70000"],
    ["REDIS_PORT", "abc"],
    ["STORE_DEBOUNCE_MS", "abc"],
    ["STORE_DEBOUNCE_MS", "-5"],
    ["STORE_DEBOUNCE_MS", "1.5"],
    ["SHUTDOWN_TIMEOUT_MS", "soon"],
  ])("%s=%s", async (name, value) => {
    const { code, output } = await run(INSTANCE, { [name]: value });
    expect(code).toBe(1);
    expect(output).toContain(`${name} must be an integer`);
    expect(output).toContain(`"${value}"`);
  });

  it("a ROOM_SECRET under 16 characters: named, its value not printed", async () => {
    const { code, output } = await run(INSTANCE, { ROOM_SECRET: "short-secret" });
    expect(code).toBe(1);
    expect(output).toContain("ROOM_SECRET must be at least 16 characters");
    expect(output).not.toContain("short-secret");
  });

  it("an unreachable DATABASE_URL is reported at start, its password hidden", async () => {
    const dead = await freePort();
    const { code, output } = await run(INSTANCE, { DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${dead}/postgres` });
    expect(code).toBe(1);
    expect(output).toContain(`DATABASE_URL postgres://postgres:***@127.0.0.1:${dead}/postgres is unreachable`);
    expect(output).not.toContain("hunter2");
  });

  it("a PORT another process listens on: named, in one line (not a stack trace)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => void taken.close());
    const port = (taken.address() as AddressInfo).port;
    const { code, output } = await run(INSTANCE, { PORT: String(port) });
    expect(code).toBe(1);
    expect(output.trim()).toBe(`hocuspocus config: PORT=${port}: 127.0.0.1:${port} is in use`);
  });

  it("a REDIS_PORT with no Redis behind it: named, in one line (not a stack trace)", async () => {
    const dead = await freePort();
    const { code, output } = await run(INSTANCE, { REDIS_PORT: String(dead) });
    expect(code).toBe(1);
    expect(output.trim()).toMatch(
      new RegExp(`^hocuspocus config: REDIS_PORT=${dead}: no Redis answers on 127\\.0\\.0\\.1:${dead} \\(.*ECONNREFUSED.*\\)$`),
    );
  });

  it("a DATABASE_URL whose database lacks the documents table is reported at start", async () => {
    const url = new URL(env.cluster().postgres.connectionString);
    url.pathname = "/template1"; // exists on every Postgres, and has no table of ours
    const { code, output } = await run(INSTANCE, { DATABASE_URL: url.toString() });
    expect(code).toBe(1);
    expect(output).toMatch(/DATABASE_URL \S+\/template1 has no table shared_fetch_documents/);
  });
});

describe("main.ts (npm run server:cluster) refuses a bad configuration before it starts anything", () => {
  it.each([
    ["INSTANCES", "0", 'INSTANCES must be an integer ≥ 1, got "0"'],
    ["INSTANCES", "two", 'INSTANCES must be an integer ≥ 1, got "two"'],
    ["ROOM_SECRET", "short-secret", "ROOM_SECRET must be at least 16 characters"],
  ])("%s=%s", async (name, value, message) => {
    const { code, output } = await run(MAIN, { [name]: value });
    expect(code).toBe(1);
    expect(output).toContain(message);
    if (name === "ROOM_SECRET") expect(output).not.toContain(value);
  });
});
