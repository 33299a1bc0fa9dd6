import { afterEach } from "vitest";
import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A module's source, or a response spelled out (status, headers, chunked = no Content-Length). */
export type HostedFile = string | { body?: string; status?: number; headers?: Record<string, string>; chunked?: boolean };

type PathMatch = string | ((path: string) => boolean);

/**
 * A real HTTP server on 127.0.0.1 serving an in-memory module graph. Unknown paths are 404.
 * Tests wait on its events (a request arrived, a hung socket closed, n requests held), never on time.
 */
export class ModuleHost {
  /** Request targets (path + query) in arrival order. */
  readonly requests: string[] = [];
  /** Requests currently held back by `hold`, oldest first. */
  readonly held: { path: string; respond: () => void }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly counts = new Map<string, number>();
  private readonly hung: PathMatch[] = [];
  private readonly holds: PathMatch[] = [];
  private readonly closedHung = new Set<string>();
  private readonly events = new EventEmitter();
  private readonly server = createServer((req, res) => this.handle(req, res));
  origin = "";

  constructor(private readonly files: Record<string, HostedFile>) {}

  static async start(files: Record<string, HostedFile>): Promise<ModuleHost> {
    const host = new ModuleHost(files);
    host.server.listen(0, "127.0.0.1");
    await once(host.server, "listening");
    host.origin = `http://127.0.0.1:${(host.server.address() as AddressInfo).port}`;
    return host;
  }

  url(pathAndQuery: string): string {
    return this.origin + pathAndQuery;
  }

  /** Adds or replaces a file (e.g. one whose source must name the server's own origin). */
  set(path: string, file: HostedFile): void {
    this.files[path] = file;
  }

  /** Requests seen for a path (query ignored). */
  count(path: string): number {
    return this.counts.get(path) ?? 0;
  }

  /** Accept requests for these paths and never answer them. */
  hang(match: PathMatch): void {
    this.hung.push(match);
  }

  /** Hold requests for these paths until `release`/`releaseAll`, then answer normally. */
  hold(match: PathMatch): void {
    this.holds.push(match);
  }

  release(path: string): void {
    const index = this.held.findIndex((h) => h.path === path);
    if (index === -1) throw new Error(`no held request for ${path}`);
    this.held.splice(index, 1)[0]!.respond();
  }

  releaseAll(): void {
    for (const h of this.held.splice(0)) h.respond();
  }

  waitForRequest(path: string): Promise<void> {
    return this.waitUntil(() => this.count(path) > 0);
  }

  waitForHeld(n: number): Promise<void> {
    return this.waitUntil(() => this.held.length >= n);
  }

  /** Resolves once the connection of a hung request for `path` has closed. */
  waitForClose(path: string): Promise<void> {
    return this.waitUntil(() => this.closedHung.has(path));
  }

  async close(): Promise<void> {
    this.releaseAll();
    const closed = once(this.server, "close");
    this.server.close();
    this.server.closeAllConnections();
    await closed;
  }

  private waitUntil(done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!done()) return;
        this.events.off("change", check);
        resolve();
      };
      this.events.on("change", check);
      check();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? "/";
    const path = new URL(target, this.origin).pathname;
    this.requests.push(target);
    this.counts.set(path, this.count(path) + 1);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on("close", () => {
      this.inFlight--;
      if (!res.writableEnded) this.closedHung.add(path);
      this.events.emit("change");
    });
    if (this.hung.some((m) => matches(m, path))) {
      this.events.emit("change");
      return;
    }
    if (this.holds.some((m) => matches(m, path))) {
      this.held.push({ path, respond: () => this.respond(path, res) });
      this.events.emit("change");
      return;
    }
    this.events.emit("change");
    this.respond(path, res);
  }

  private respond(path: string, res: ServerResponse): void {
    const file = Object.hasOwn(this.files, path) ? this.files[path] : undefined;
    if (file === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const spec = typeof file === "string" ? { body: file } : file;
    const body = spec.body ?? "";
    const headers: Record<string, string> = { "content-type": "text/javascript", ...spec.headers };
    if (!spec.chunked) headers["content-length"] = String(Buffer.byteLength(body));
    res.writeHead(spec.status ?? 200, headers);
    if (spec.chunked) {
      // Several writes without a length: the client only learns the size by reading.
      for (let i = 0; i < body.length; i += 256) res.write(body.slice(i, i + 256));
    } else {
      res.write(body);
    }
    res.end();
  }
}

function matches(match: PathMatch, path: string): boolean {
  return typeof match === "string" ? match === path : match(path);
}

/** The real fetch, recording each call's URL and signal. */
export function recordingFetch(): { fetch: typeof fetch; calls: { url: string; signal: AbortSignal | undefined }[] } {
  const calls: { url: string; signal: AbortSignal | undefined }[] = [];
  const wrapped: typeof fetch = (input, init) => {
    calls.push({ url: String(input), signal: init?.signal ?? undefined });
    return fetch(input, init);
  };
  return { fetch: wrapped, calls };
}

/** A module host per test, closed after each: `const serve = servedPerTest();` then `await serve(files)`. */
export function servedPerTest(): (files: Record<string, HostedFile>) => Promise<ModuleHost> {
  let host: ModuleHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });
  return async (files) => (host = await ModuleHost.start(files));
}
