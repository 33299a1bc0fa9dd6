/** A call the host received: the test decides when and how it is answered. */
export type HostCall = {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal | undefined;
  aborted: boolean;
  settled: boolean;
  /** Answers with `body` as JSON. */
  respond(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Answers with `text` as it is. */
  respondRaw(status: number, text: string, headers?: Record<string, string>): void;
  fail(error: Error): void;
};

/**
 * A simulated HTTP host passed as the store's `fetch`. Each call waits until the test answers it
 * (or `auto` answers it), and rejects with AbortError when its signal aborts, like real fetch.
 */
export class Host {
  readonly calls: HostCall[] = [];
  private readonly waiting: (() => void)[] = [];

  /** Resolves once the host has received `n` calls in all (an explicit event, no polling). */
  whenCalls(n: number): Promise<HostCall[]> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.calls.length < n) return false;
        resolve(this.calls);
        return true;
      };
      if (!check()) this.waiting.push(() => void check());
    });
  }
  /** When set, answers each call at once with what it returns (undefined: leave it hanging). */
  auto: ((call: HostCall) => { status: number; body: unknown } | undefined) | undefined;

  readonly fetch: typeof fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    return new Promise<Response>((resolve, reject) => {
      const signal = init?.signal ?? undefined;
      const call: HostCall = {
        url,
        method: init?.method ?? "GET",
        headers,
        body: typeof init?.body === "string" ? init.body : undefined,
        signal,
        aborted: false,
        settled: false,
        respond: (status, body, extra) => call.respondRaw(status, JSON.stringify(body), extra),
        respondRaw: (status, text, extra) => {
          if (call.settled) return;
          call.settled = true;
          resolve(new Response(status === 204 ? null : text, { status, headers: extra }));
        },
        fail: (error) => {
          if (call.settled) return;
          call.settled = true;
          reject(error);
        },
      };
      signal?.addEventListener("abort", () => {
        call.aborted = true;
        if (!call.settled) {
          call.settled = true;
          reject(signal.reason instanceof Error ? signal.reason : new DOMException("aborted", "AbortError"));
        }
      });
      this.calls.push(call);
      for (const wake of this.waiting.splice(0)) wake();
      const answer = this.auto?.(call);
      if (answer) call.respond(answer.status, answer.body);
    });
  };

  callsTo(path: string): HostCall[] {
    return this.calls.filter((c) => new URL(c.url).pathname === path);
  }

  get open(): HostCall[] {
    return this.calls.filter((c) => !c.settled);
  }
}
