import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

type Pending = { path: string; response: ServerResponse };

/**
 * A real HTTP host on 127.0.0.1 that counts requests per path. While `hold` is on it answers
 * nothing (a request in flight for as long as the test wants); `release()` answers them all.
 */
export class CountingHost {
  readonly requests: string[] = [];
  hold = false;
  private readonly pending: Pending[] = [];
  private readonly waiters: (() => boolean)[] = [];
  private readonly server = createServer((request: IncomingMessage, response: ServerResponse) => this.onRequest(request, response));
  private port = 0;

  static async start(): Promise<CountingHost> {
    const host = new CountingHost();
    await new Promise<void>((resolve) => host.server.listen(0, "127.0.0.1", resolve));
    const address = host.server.address();
    host.port = typeof address === "object" && address !== null ? address.port : 0;
    return host;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Requests the host received for `path`. */
  count(path: string): number {
    return this.requests.filter((p) => p === path).length;
  }

  /** Resolves once `n` requests for `path` arrived. */
  whenCount(path: string, n: number): Promise<void> {
    return new Promise((resolve) => {
      const check = (): boolean => (this.count(path) >= n ? (resolve(), true) : false);
      if (!check()) this.waiters.push(check);
    });
  }

  /** Answers every held request (and stops holding). */
  release(): void {
    this.hold = false;
    for (const { path, response } of this.pending.splice(0)) this.answer(path, response);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onRequest(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? "/", "http://host").pathname;
    this.requests.push(path);
    for (let i = this.waiters.length - 1; i >= 0; i--) if (this.waiters[i]!()) this.waiters.splice(i, 1);
    if (this.hold) this.pending.push({ path, response });
    else this.answer(path, response);
  }

  private answer(path: string, response: ServerResponse): void {
    if (response.destroyed) return;
    // No keep-alive: a client reusing a socket that the server's 5 s keep-alive timer is closing
    // gets ECONNRESET, which a loaded machine (the bench) hits often.
    response.writeHead(200, { "content-type": "application/json", connection: "close" });
    response.end(JSON.stringify({ path, n: this.count(path) }));
  }
}
