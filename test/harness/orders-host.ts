/**
 * The host orders are posted to, for one test file: a real HTTP server on 127.0.0.1 that records
 * every request (path, body, Idempotency-Key) and answers 201 with `{ order: n }`, n the count so far.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll } from "vitest";

export type Post = { path: string; body: string; key: string | undefined };

export type OrdersHost = {
  base: string;
  /** Every request the host received, in order. */
  posts: Post[];
  /** How many of the next requests are answered 503. */
  failing: number;
  /** When set, requests whose body includes it wait for `release()`. */
  held: string;
  release(): void;
};

/** Listening before the file's first test, closed after its last; each test leaves no post, failure or held request behind. */
export function ordersHostForFile(): OrdersHost {
  const waiting: (() => void)[] = [];
  const host: OrdersHost = {
    base: "",
    posts: [],
    failing: 0,
    held: "",
    release: () => void (waiting.splice(0).forEach((go) => go()), (host.held = "")),
  };
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const key = req.headers["idempotency-key"];
        host.posts.push({ path: req.url ?? "", body, key: typeof key === "string" ? key : undefined });
        const answer = () => {
          if (host.failing > 0 && host.failing--) return void res.writeHead(503).end("busy");
          res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ order: host.posts.length }));
        };
        if (host.held && body.includes(host.held)) waiting.push(answer);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    host.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    host.release();
    host.posts.length = 0;
    host.failing = 0;
  });
  return host;
}
