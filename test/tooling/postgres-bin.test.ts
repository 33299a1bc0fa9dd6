/**
 * README, Two commands: the `cluster` project needs PostgreSQL, any major version; "the newest under
 * `/usr/lib/postgresql/*\/bin` is used, else `/usr/bin`, or `POSTGRES_BIN`", and the tests fail,
 * naming the package, when it is missing. The lookup runs here on folders laid out as Debian's and
 * other systems' installs are, in a temporary directory.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { requireBinary } from "../../server/cluster/child.ts";
import { postgresBin } from "../../server/cluster/postgres.ts";

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A folder holding `lib/postgresql/<major>/bin/pg_ctl` for each of `majors`, and `bin/pg_ctl` when `usrBin`. */
function layout(majors: string[], usrBin = false) {
  const root = mkdtempSync(join(tmpdir(), "pg-lookup-"));
  roots.push(root);
  const tool = (folder: string) => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "pg_ctl"), "#!/bin/sh\n");
    chmodSync(join(folder, "pg_ctl"), 0o755);
  };
  const debian = join(root, "lib", "postgresql");
  mkdirSync(debian, { recursive: true });
  for (const major of majors) tool(join(debian, major, "bin"));
  if (usrBin) tool(join(root, "bin"));
  return { debian, usrBin: join(root, "bin") };
}

describe("README, Two commands: where the cluster tests find PostgreSQL", () => {
  it("the newest major under lib/postgresql is used, by number (16 over 9), skipping a major without pg_ctl and other folders", () => {
    const { debian, usrBin } = layout(["9", "13", "16"], true);
    mkdirSync(join(debian, "17")); // a major's folder left without its server tools
    mkdirSync(join(debian, "common", "bin"), { recursive: true });
    expect(postgresBin({}, debian, usrBin)).toBe(join(debian, "16", "bin"));
  });

  it("with no major there, /usr/bin's pg_ctl is used", () => {
    const { debian, usrBin } = layout([], true);
    expect(postgresBin({}, debian, usrBin)).toBe(usrBin);
    expect(postgresBin({}, join(debian, "absent"), usrBin)).toBe(usrBin);
  });

  it("POSTGRES_BIN overrides both", () => {
    const { debian, usrBin } = layout(["16"], true);
    expect(postgresBin({ POSTGRES_BIN: "/opt/pg/bin" }, debian, usrBin)).toBe("/opt/pg/bin");
  });

  it("with none installed, starting a server fails naming the package to install", () => {
    const { debian, usrBin } = layout([]);
    const bin = postgresBin({}, debian, join(usrBin, "absent"));
    expect(() => requireBinary(`${bin}/pg_ctl`, "postgresql")).toThrow(
      `${bin}/pg_ctl is missing: the cluster needs Debian's postgresql (apt-get install -y postgresql)`,
    );
  });
});
