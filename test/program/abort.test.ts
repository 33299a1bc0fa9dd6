import { describe, expect, it } from "vitest";
import { resolveProgram } from "../../src/core/program/index.ts";
import { recordingFetch, servedPerTest } from "./module-host.ts";

const serve = servedPerTest();

describe("resolveProgram: cancellation", () => {
  it("aborting during a hung request rejects with AbortError and the server sees the socket close", async () => {
    const h = await serve({ "/app/main.ts": `import "./slow.ts"; import "./fast.ts";`, "/app/fast.ts": `export {};` });
    h.hang("/app/slow.ts");
    const { fetch: recorded, calls } = recordingFetch();
    const controller = new AbortController();
    const resolving = resolveProgram(h.url("/app/main.ts"), { fetch: recorded, signal: controller.signal });
    await h.waitForRequest("/app/slow.ts");
    await h.waitForRequest("/app/fast.ts");

    controller.abort();
    await expect(resolving).rejects.toMatchObject({ name: "AbortError" });
    await h.waitForClose("/app/slow.ts");
    // Every request of the walk carried a signal that the abort reached.
    expect(calls.map((c) => c.url)).toEqual(expect.arrayContaining([h.url("/app/slow.ts"), h.url("/app/fast.ts")]));
    expect(calls.every((c) => c.signal?.aborted)).toBe(true);
  });

  it("rejects with the signal's own reason when one is given", async () => {
    const h = await serve({ "/app/main.ts": `import "./slow.ts";` });
    h.hang("/app/slow.ts");
    const controller = new AbortController();
    const resolving = resolveProgram(h.url("/app/main.ts"), { fetch, signal: controller.signal });
    await h.waitForRequest("/app/slow.ts");
    const reason = new Error("unmounted");
    controller.abort(reason);
    await expect(resolving).rejects.toBe(reason);
    await h.waitForClose("/app/slow.ts");
  });

  it("an already-aborted signal rejects before any request", async () => {
    const { fetch: recorded, calls } = recordingFetch();
    const resolving = resolveProgram("http://127.0.0.1:9/app/main.ts", {
      fetch: recorded,
      signal: AbortSignal.abort(),
    });
    await expect(resolving).rejects.toMatchObject({ name: "AbortError" });
    expect(calls).toEqual([]);
  });

  it("when one module fails, the requests still in flight are aborted (the hung socket closes)", async () => {
    const h = await serve({ "/app/main.ts": `import "./slow.ts"; import "./missing.ts";` });
    h.hang("/app/slow.ts");
    h.hold("/app/missing.ts");
    const resolving = resolveProgram(h.url("/app/main.ts"), { fetch });
    await h.waitForRequest("/app/slow.ts");
    await h.waitForRequest("/app/missing.ts");
    h.release("/app/missing.ts");

    await expect(resolving).rejects.toMatchObject({
      name: "ProgramResolveError",
      message: "module './missing.ts' imported by /app/main.ts not found (HTTP 404 for /app/missing.ts)",
      status: 404,
    });
    await h.waitForClose("/app/slow.ts");
  });

  it("after a failure, queued requests are never started", async () => {
    const h = await serve({
      "/app/main.ts": `import "./bad.ts"; import "./q1.ts"; import "./q2.ts";`,
      "/app/q1.ts": `export {};`,
      "/app/q2.ts": `export {};`,
    });
    h.hold("/app/bad.ts");
    const resolving = resolveProgram(h.url("/app/main.ts"), { fetch, concurrency: 1 });
    await h.waitForRequest("/app/bad.ts");
    h.release("/app/bad.ts");
    await expect(resolving).rejects.toThrow("module './bad.ts' imported by /app/main.ts not found");
    // q1 and q2 waited for bad.ts's slot, which ended with the failure.
    expect(h.count("/app/q1.ts")).toBe(0);
    expect(h.count("/app/q2.ts")).toBe(0);
  });
});
