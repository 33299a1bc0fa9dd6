import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { performance } from "node:perf_hooks";

/**
 * How the host answers one request of a path:
 * - `{ delayMs, status? }`: answers after delayMs (0: at once), with `status` (default 200);
 * - `"hang"`: never answers (the socket stays open until the client goes or the host closes);
 * - `"hold"`: waits until the test calls `call.respond()` (see `host.nextCall`);
 * - `"stall"`: sends the headers and the first bytes of the body, then nothing more.
 */
export type Step = { delayMs: number; status?: number } | "hang" | "hold" | "stall";

/** One request the host received under /api/. Times are node `performance.now()` ms. */
export type ApiCall = {
  path: string;
  query: URLSearchParams;
  /** 1-based: the n-th request of this path. */
  n: number;
  at: number;
  /** When the answer was sent (taken just before res.end), if it was. */
  answeredAt?: number;
  /** Set when the client went away before an answer (tab crashed, context closed, abort). */
  closedAt?: number;
  /** Answers now (no-op if already answered or closed). Returns `answeredAt`. */
  respond(body?: unknown): number | undefined;
};

export type CountingHost = {
  /** Origin, e.g. "http://127.0.0.1:40123"; the page is at `${origin}/`. */
  origin: string;
  /** Requests received so far for an /api/ path (e.g. "/api/s1"). */
  count(path: string): number;
  calls(path: string): ApiCall[];
  /**
   * Plans the answers of a path: the n-th request takes steps[n-1], the last step repeats.
   * Default for every path: `[{ delayMs: 0 }]`. Query `?delay=N` or `?hang=1` overrides per request.
   */
  plan(path: string, steps: Step[]): void;
  /** Resolves with the n-th call of a path (1-based) as soon as it arrives. */
  waitForCall(path: string, n: number, timeoutMs?: number): Promise<ApiCall>;
  /** Ends every response still open (hung or held): between tests, so no socket lingers. */
  dropOpen(): void;
  close(): Promise<void>;
};

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
};

/**
 * The counting HTTP host on 127.0.0.1 (port 0): serves the built test page from `pageDir` and a
 * JSON API under /api/ from the same origin (no CORS needed; CORS headers are sent anyway), and
 * counts the API requests per path.
 */
export async function startHost(pageDir: string): Promise<CountingHost> {
  const calls = new Map<string, ApiCall[]>();
  const plans = new Map<string, Step[]>();
  const waiters = new Set<{ path: string; n: number; resolve: (c: ApiCall) => void }>();
  const open = new Set<http.ServerResponse>();
  const sockets = new Set<Socket>();

  const answer = (call: ApiCall, res: http.ServerResponse, body: unknown, status = 200): number | undefined => {
    if (call.answeredAt !== undefined || call.closedAt !== undefined || res.writableEnded) return undefined;
    const text = JSON.stringify(body ?? { path: call.path, n: call.n });
    // Stamped before the write: this process may be descheduled right after handing the bytes to
    // the socket, while the browser already renders them.
    call.answeredAt = performance.now();
    res.writeHead(status, {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Access-Control-Allow-Origin": "*",
    });
    res.end(text);
    open.delete(res);
    return call.answeredAt;
  };

  const api = (url: URL, res: http.ServerResponse): void => {
    const path = url.pathname;
    const list = calls.get(path) ?? [];
    calls.set(path, list);
    const call: ApiCall = {
      path,
      query: url.searchParams,
      n: list.length + 1,
      at: performance.now(),
      respond: (body) => answer(call, res, body),
    };
    list.push(call);
    open.add(res);
    res.on("close", () => {
      open.delete(res);
      if (call.answeredAt === undefined) call.closedAt ??= performance.now();
    });
    for (const w of [...waiters]) {
      if (w.path === path && w.n === call.n) {
        waiters.delete(w);
        w.resolve(call);
      }
    }
    const steps = plans.get(path) ?? [{ delayMs: 0 }];
    let step: Step = steps[Math.min(call.n, steps.length) - 1] ?? { delayMs: 0 };
    if (url.searchParams.get("hang") === "1") step = "hang";
    else if (url.searchParams.has("delay")) step = { delayMs: Number(url.searchParams.get("delay")) };
    if (step === "stall") {
      res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" }).write('{"path":');
      return;
    }
    if (step === "hang" || step === "hold") return;
    const { status } = step;
    if (step.delayMs <= 0) answer(call, res, undefined, status);
    else setTimeout(() => answer(call, res, undefined, status), step.delayMs);
  };

  const file = async (pathname: string, res: http.ServerResponse): Promise<void> => {
    const rel = normalize(decodeURIComponent(pathname === "/" ? "/index.html" : pathname)).replace(/^([/\\])+/, "");
    const full = join(pageDir, rel);
    if (rel.startsWith("..") || !full.startsWith(pageDir + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(full);
      res.writeHead(200, { "Content-Type": TYPES[extname(full)] ?? "application/octet-stream", "Cache-Control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
    }
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, HEAD",
        "Access-Control-Allow-Headers": "*",
      });
      res.end();
      return;
    }
    if (url.pathname.startsWith("/api/")) api(url, res);
    else void file(url.pathname, res);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const dropOpen = (): void => {
    for (const res of [...open]) {
      open.delete(res);
      res.destroy();
    }
  };

  return {
    origin: `http://127.0.0.1:${port}`,
    count: (path) => calls.get(path)?.length ?? 0,
    calls: (path) => [...(calls.get(path) ?? [])],
    plan: (path, steps) => {
      if (steps.length === 0) throw new Error("plan: give at least one step");
      plans.set(path, steps);
    },
    waitForCall(path, n, timeoutMs = 30_000) {
      const existing = calls.get(path)?.[n - 1];
      if (existing) return Promise.resolve(existing);
      return new Promise<ApiCall>((resolve, reject) => {
        const waiter = {
          path,
          n,
          resolve: (c: ApiCall) => {
            clearTimeout(timer);
            resolve(c);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`host: request #${n} of ${path} did not arrive within ${timeoutMs} ms (got ${calls.get(path)?.length ?? 0})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    dropOpen,
    close: () =>
      new Promise<void>((resolve) => {
        dropOpen();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
