import { describe, expect, it } from "vitest";
import { ProgramResolveError, resolveProgram } from "../../src/core/program/index.ts";
import { recordingFetch, servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

const chain = {
  "/app/m1.ts": `import "./m2.ts";`,
  "/app/m2.ts": `import "./m3.ts";`,
  "/app/m3.ts": `import "./m4.ts";`,
  "/app/m4.ts": `export {};`,
};

describe("resolveProgram: limits", () => {
  it("fails when the program has more than maxFiles modules", async () => {
    const h = await serve(chain);
    await expect(resolveProgram(h.url("/app/m1.ts"), { fetch, maxFiles: 3 })).rejects.toMatchObject({
      name: "ProgramResolveError",
      message: "program has more than 3 modules (limit reached at /app/m4.ts)",
    });
    const program = await resolveProgram(h.url("/app/m1.ts"), { fetch, maxFiles: 4 });
    expect(program.files).toHaveLength(4);
  });

  it.each([
    ["with a Content-Length header", false],
    ["without Content-Length (counting the bytes read)", true],
  ])("fails on a file larger than maxFileBytes %s", async (_label, chunked) => {
    const h = await serve({
      "/app/main.ts": `import "./big.ts";`,
      "/app/big.ts": { body: `export const big = "${"x".repeat(2000)}";`, chunked },
    });
    const err = await resolveProgram(h.url("/app/main.ts"), { fetch, maxFileBytes: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProgramResolveError);
    expect((err as Error).message).toBe(
      "module /app/big.ts is larger than the limit of 1000 bytes per file (imported by /app/main.ts as './big.ts')",
    );
  });

  it("checks the entry against maxFileBytes too", async () => {
    const h = await serve({ "/app/main.ts": { body: "x".repeat(50), chunked: true } });
    await expect(resolveProgram(h.url("/app/main.ts"), { fetch, maxFileBytes: 10 })).rejects.toThrow(
      "module /app/main.ts is larger than the limit of 10 bytes per file",
    );
  });

  it("fails when the program's total size exceeds maxTotalBytes", async () => {
    const pad = (name: string) => `export const ${name} = "${"x".repeat(580)}";`;
    const h = await serve({
      "/app/main.ts": `import "./a.ts";\n${pad("m")}`,
      "/app/a.ts": `import "./b.ts";\n${pad("a")}`,
      "/app/b.ts": pad("b"),
    });
    await expect(resolveProgram(h.url("/app/main.ts"), { fetch, maxTotalBytes: 1500 })).rejects.toThrow(
      /^program is larger than the limit of 1500 bytes in total \(reached at \/app\/b\.ts\)/,
    );
    await expect(resolveProgram(h.url("/app/main.ts"), { fetch, maxTotalBytes: 2000 })).resolves.toMatchObject({
      main: "/app/main.ts",
    });
  });

  it("keeps at most `concurrency` requests in flight (server-observed), with no request queued beyond the bound", async () => {
    const leaves = Array.from({ length: 12 }, (_, i) => `/app/leaf${i}.ts`);
    const h = await serve({
      "/app/main.ts": leaves.map((p) => `import ".${p.slice(4)}";`).join("\n"),
      ...Object.fromEntries(leaves.map((p) => [p, `export {};`])),
    });
    h.hold((path) => path.startsWith("/app/leaf"));
    const { fetch: counted, calls } = recordingFetch();
    const resolving = resolveProgram(h.url("/app/main.ts"), { fetch: counted, concurrency: 3 });
    for (let batch = 0; batch < 4; batch++) {
      await h.waitForHeld(3);
      // Every fetch the resolver has started is at the server and held: nothing else is on its way.
      expect(h.held).toHaveLength(3);
      expect(calls).toHaveLength(h.requests.length);
      expect(h.inFlight).toBe(3);
      h.releaseAll();
    }
    const program = await resolving;
    expect(program.files).toHaveLength(13);
    expect(h.maxInFlight).toBe(3);
    for (const leaf of leaves) expect(h.count(leaf)).toBe(1);
  });
});
