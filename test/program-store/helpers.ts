import { request } from "node:http";
import { vi } from "vitest";
import { ModuleHost, type HostedFile } from "../program/module-host.ts";

/**
 * Real network I/O under a fake clock. `vi.advanceTimersByTimeAsync` only runs microtasks, never
 * the event loop's I/O phase; `setImmediate` is not faked, so awaiting it lets sockets make
 * progress. The fake clock is not advanced here: time passes only where a test says so.
 */
export async function turn(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Turns the event loop (real I/O, due fake timers at the current fake time) until `done()`. */
export async function realWaitFor(done: () => boolean, what = "condition", maxRealMs = 10_000): Promise<void> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > maxRealMs) throw new Error(`timed out waiting for ${what}`);
    await turn();
  }
}

/** Awaits a promise that depends on real I/O while the clock is fake. */
export async function realUntil<T>(promise: Promise<T>, maxRealMs = 10_000): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await realWaitFor(() => settled, "promise", maxRealMs);
  return promise;
}

/** Advances the fake clock by `ms` in steps, letting real I/O run between steps. */
export async function advance(ms: number, stepMs = 1000): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    await vi.advanceTimersByTimeAsync(Math.min(stepMs, ms - t));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * A fetch over node:http with no client-side timeout of its own, like a browser's: Node's built-in
 * fetch (undici) gives up on a silent host after 300 s (headersTimeout), on the very clock a fake
 * timer test advances. The network traffic is real; aborting destroys the socket.
 */
export const nodeHttpFetch: typeof fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const signal = init?.signal ?? undefined;
    const reason = () => (signal?.reason instanceof Error ? signal.reason : new DOMException("This operation was aborted", "AbortError"));
    if (signal?.aborted) {
      reject(reason());
      return;
    }
    const req = request(url, { method: init?.method ?? "GET", agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        signal?.removeEventListener("abort", onAbort);
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const status = res.statusCode ?? 500;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
      });
      res.on("error", (error) => reject(signal?.aborted ? reason() : new TypeError("fetch failed", { cause: error })));
    });
    const onAbort = () => {
      req.destroy();
      reject(reason());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => reject(signal?.aborted ? reason() : new TypeError("fetch failed", { cause: error })));
    req.end();
  });

/** Module hosts started by a test file, closed after each test. */
export function hosts(): { start(files: Record<string, HostedFile>): Promise<ModuleHost>; closeAll(): Promise<void> } {
  const started: ModuleHost[] = [];
  return {
    async start(files) {
      const host = await ModuleHost.start(files);
      started.push(host);
      return host;
    },
    async closeAll() {
      for (const host of started.splice(0)) await host.close();
    },
  };
}

/** Each path's request count on a host, for "every file exactly once" checks. */
export function countsOf(host: ModuleHost, paths: string[]): Record<string, number> {
  return Object.fromEntries(paths.map((p) => [p, host.count(p)]));
}

/** A small module graph under /app: main imports a, b (extension probed) and c through a. */
export const GRAPH: Record<string, HostedFile> = {
  "/app/main.ts": `import { a } from "./a.ts";\nimport { b } from "./b";\nexport const main = a + b;\n`,
  "/app/a.ts": `export { c } from "./lib/c.ts";\nexport const a: number = 1;\n`,
  "/app/b.ts": `export const b = 2;\n`,
  "/app/lib/c.ts": `export const c = 3;\n`,
};
export const GRAPH_PATHS = ["/app/main.ts", "/app/a.ts", "/app/b.ts", "/app/lib/c.ts"];
