import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onProcessExit, requireBinary } from "./child.ts";
import { freePort } from "./ports.ts";

/**
 * Where the server's tools are: Debian and Ubuntu install each major version under
 * /usr/lib/postgresql/<major>/bin (the newest found is used, so any supported release works);
 * other systems put pg_ctl on /usr/bin. `POSTGRES_BIN` overrides both. The folders are parameters
 * for the lookup's test alone.
 */
export function postgresBin(env: NodeJS.ProcessEnv = process.env, debian = "/usr/lib/postgresql", usrBin = "/usr/bin"): string {
  if (env.POSTGRES_BIN) return env.POSTGRES_BIN;
  const majors = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = majors.find((major) => existsSync(join(debian, major, "bin", "pg_ctl")));
  if (found !== undefined) return join(debian, found, "bin");
  return existsSync(join(usrBin, "pg_ctl")) ? usrBin : join(debian, "<version>", "bin");
}

const BIN = postgresBin();

export type PostgresProcess = {
  port: number;
  /** For `pg`: user postgres, trust auth, database postgres, on 127.0.0.1 only. */
  connectionString: string;
  /** `pg_ctl start` again on the same data folder and port (after stop or crash). */
  start(): void;
  /** `-m immediate`: no checkpoint, no goodbye, recovery from the WAL at the next start (a crash). */
  crash(): void;
  /** Orderly stop, then the data folder is removed. */
  destroy(): void;
};

/**
 * A throwaway PostgreSQL cluster in a temporary folder. PostgreSQL refuses to run as root, so
 * when we are root, initdb and pg_ctl run as the `postgres` user (runuser) on a folder it owns.
 */
export async function startPostgres(): Promise<PostgresProcess> {
  requireBinary(`${BIN}/pg_ctl`, "postgresql");
  const root = process.getuid?.() === 0;
  const folder = mkdtempSync(join(tmpdir(), "shared-fetch-pg-"));
  const data = join(folder, "data");
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(folder, uid, gid);
  }
  const run = (tool: string, args: string[]): void => {
    const [command, argv] = root ? ["runuser", ["-u", "postgres", "--", `${BIN}/${tool}`, ...args]] : [`${BIN}/${tool}`, args];
    const result = spawnSync(command as string, argv as string[], { encoding: "utf8", cwd: folder });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed (${result.status}):\n${result.stdout}${result.stderr}`);
  };
  const port = await freePort();
  // initdb takes 1 to 6 s on this 2-core machine; a copy of an initdb'd folder takes a fraction.
  // So the first cluster of a machine makes a template in the temp folder and later ones copy it.
  // One template per server version: a data folder made by one major version does not start another.
  const version = BIN.match(/postgresql\/(\d+)\//)?.[1] ?? "x";
  const template = join(tmpdir(), `shared-fetch-pg${version}-template-${process.getuid?.() ?? "user"}`);
  if (!existsSync(template)) {
    // --no-sync: a throwaway cluster need not be fsynced at creation; the server itself keeps fsync.
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    try {
      execFileSync("cp", ["-a", data, `${template}.${process.pid}`]);
      renameSync(`${template}.${process.pid}`, template); // atomic: a racing process keeps its own
    } catch {
      rmSync(`${template}.${process.pid}`, { recursive: true, force: true });
    }
  } else {
    execFileSync("cp", ["-a", template, data]); // -a keeps the postgres owner
  }
  // The socket goes into our folder, not /var/run/postgresql (which a system cluster may own).
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${folder}`;
  const start = (): void => run("pg_ctl", ["-D", data, "-o", options, "-l", join(folder, "log"), "-w", "-t", "30", "start"]);
  const stop = (mode: "fast" | "immediate"): void => run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
  start();
  let running = true;
  // Should the test process die, do not leave a daemon behind.
  const onExit = (): void => {
    if (running)
      spawnSync(
        root ? "runuser" : `${BIN}/pg_ctl`,
        root ? ["-u", "postgres", "--", `${BIN}/pg_ctl`, "-D", data, "-m", "immediate", "stop"] : ["-D", data, "-m", "immediate", "stop"],
      );
    rmSync(folder, { recursive: true, force: true });
  };
  const cancelOnExit = onProcessExit(onExit);
  return {
    port,
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      start();
      running = true;
    },
    crash() {
      stop("immediate");
      running = false;
    },
    destroy() {
      if (running) stop("fast");
      running = false;
      cancelOnExit();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
