/**
 * A simulated HTTP host, passed as a store's `fetch`: the one host of the unit tests, the bench and
 * the Storybook scenarios. Each call waits until it is answered — by the test (`call.respond`) or
 * by the `auto` policy — and rejects with AbortError when its signal aborts, like real fetch.
 * `fetchAs(name)` tags the calls of one replica, so a story can say "host answered B".
 */

export type CallState = "in-flight" | "answered" | "failed" | "aborted";

/** A call the host received. */
export type HostCall = {
  /** 1-based number of the call, in arrival order. */
  n: number;
  /** Who sent it (`fetchAs(name)`), when known. */
  from: string | undefined;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal | undefined;
  state: CallState;
  /** HTTP status of the answer, once answered. */
  status: number | undefined;
  aborted: boolean;
  settled: boolean;
  /** Answers with `body` as JSON. */
  respond(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Answers with `text` as it is. */
  respondRaw(status: number, text: string, headers?: Record<string, string>): void;
  fail(error: Error): void;
};

/** What the `auto` policy answers: undefined leaves the call hanging (a hung host). */
export type AutoAnswer = { status: number; body?: unknown; text?: string; delayMs?: number } | undefined;

/** An immutable snapshot of the counters (a new object after every change: `useSyncExternalStore`). */
export type HostState = {
  requests: number;
  inFlight: number;
  aborted: number;
  log: readonly HostCall[];
};

export type HostListener = (call: HostCall) => void;

export class Host {
  readonly calls: HostCall[] = [];
  /** When set, answers each call with what it returns, after its `delayMs` (0: at once). */
  auto: ((call: HostCall) => AutoAnswer) | undefined;
  /** Each returns true once it is done; the rest wait for the next call. */
  private readonly waiting: (() => boolean)[] = [];
  private readonly listeners = new Set<HostListener>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private state: HostState = { requests: 0, inFlight: 0, aborted: 0, log: [] };
  private stateQueued = false;
  private readonly stateListeners = new Set<() => void>();

  /** Resolves once the host has received `n` calls in all (an explicit event, no polling). */
  whenCalls(n: number): Promise<HostCall[]> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.calls.length < n) return false;
        resolve(this.calls);
        return true;
      };
      if (!check()) this.waiting.push(check);
    });
  }

  readonly fetch: typeof fetch = (input, init) => this.receive(undefined, input, init);

  /** A `fetch` whose calls name their sender. */
  fetchAs(from: string): typeof fetch {
    return (input, init) => this.receive(from, input, init);
  }

  /** Called on every received call and every change of a call's state. */
  onCall(listener: HostListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  callsTo(path: string): HostCall[] {
    return this.calls.filter((c) => new URL(c.url).pathname === path);
  }

  get open(): HostCall[] {
    return this.calls.filter((c) => !c.settled);
  }

  getState = (): HostState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.stateListeners.add(listener);
    return () => void this.stateListeners.delete(listener);
  };

  /** Cancels scheduled answers (calls stay as they are). */
  destroy(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.listeners.clear();
    this.stateListeners.clear();
  }

  private receive(from: string | undefined, input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(request?.headers).forEach((v, k) => (headers[k] = v));
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    return new Promise<Response>((resolve, reject) => {
      const signal = init?.signal ?? request?.signal ?? undefined;
      const settle = (state: CallState, status?: number) => {
        call.settled = true;
        call.state = state;
        call.status = status;
        this.changed(call);
      };
      const call: HostCall = {
        n: this.calls.length + 1,
        from,
        url,
        method: (init?.method ?? request?.method ?? "GET").toUpperCase(),
        headers,
        body: typeof init?.body === "string" ? init.body : undefined,
        signal,
        state: "in-flight",
        status: undefined,
        aborted: false,
        settled: false,
        respond: (status, body, extra) => call.respondRaw(status, JSON.stringify(body), { "content-type": "application/json", ...extra }),
        respondRaw: (status, text, extra) => {
          if (call.settled) return;
          settle("answered", status);
          resolve(new Response(status === 204 ? null : text, { status, headers: extra }));
        },
        fail: (error) => {
          if (call.settled) return;
          settle("failed");
          reject(error);
        },
      };
      const onAbort = () => {
        call.aborted = true;
        if (call.settled) return;
        settle("aborted");
        reject(signal!.reason instanceof Error ? signal!.reason : new DOMException("aborted", "AbortError"));
      };
      this.calls.push(call);
      this.changed(call);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      // A wait for a later call than this one waits on: dropped here, it never resolved.
      for (const wake of this.waiting.splice(0)) if (!wake()) this.waiting.push(wake);
      const answer = this.auto?.(call);
      if (!answer) return;
      // `text` is sent as it is (e.g. a module's source), `body` as JSON.
      const send = () =>
        answer.text !== undefined ? call.respondRaw(answer.status, answer.text) : call.respond(answer.status, answer.body);
      if (!answer.delayMs) return send();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        send();
      }, answer.delayMs);
      this.timers.add(timer);
    });
  }

  private changed(call: HostCall): void {
    for (const listener of [...this.listeners]) listener(call);
    if (this.stateQueued) return;
    // Notify React in a microtask: fetch is called from anywhere (a render, a Yjs observer).
    this.stateQueued = true;
    queueMicrotask(() => {
      this.stateQueued = false;
      const log = this.calls.map((c) => ({ ...c }));
      this.state = {
        requests: log.length,
        inFlight: log.filter((c) => c.state === "in-flight").length,
        aborted: log.filter((c) => c.state === "aborted").length,
        log,
      };
      for (const listener of [...this.stateListeners]) listener();
    });
  }
}
