/**
 * A simulated HTTP host: a `fetch` function (pass it as the store's `fetch` option) that counts
 * the requests it receives and answers JSON after a delay. Scenarios switch its behaviour at run
 * time (`host.behavior = "hang"`) to play hung hosts and failing duplicates.
 */

export type HostBehavior =
  /** Answer `respond(...)` as JSON with status 200 after `delayMs`. */
  | "ok"
  /** Answer HTTP 500 after `delayMs`. */
  | "fail"
  /** Never answer (until the request is aborted). */
  | "hang";

export type HostRequest = {
  /** 1-based number of the request, in arrival order. */
  n: number;
  url: string;
  method: string;
  headers: Record<string, string>;
  /** "in-flight" until answered; "aborted" when the caller's signal fired first. */
  state: "in-flight" | "answered" | "failed" | "aborted";
};

export type HostState = {
  /** Number of requests received. */
  requests: number;
  /** Requests not yet answered, failed or aborted. */
  inFlight: number;
  aborted: number;
  log: readonly HostRequest[];
};

export type SimulatedHostOptions = {
  /** Time to answer, in ms (default 600). */
  delayMs?: number;
  behavior?: HostBehavior;
  /** The JSON body of an "ok" answer (default: a greeting naming the request number and URL). */
  respond?: (request: HostRequest) => unknown;
};

export type SimulatedHost = {
  readonly fetch: typeof fetch;
  delayMs: number;
  behavior: HostBehavior;
  /** An immutable snapshot; a new object after every change (for `useSyncExternalStore`). */
  getState(): HostState;
  subscribe(listener: () => void): () => void;
  /** Forget the log and the counters (pending answers still arrive). */
  reset(): void;
};

export const defaultRespond = (request: HostRequest): unknown => ({
  message: "hello from the host",
  request: request.n,
  url: request.url,
});

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

function headersOf(init: RequestInit | undefined, input: RequestInfo | URL): Record<string, string> {
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

export function createSimulatedHost(options: SimulatedHostOptions = {}): SimulatedHost {
  const respond = options.respond ?? defaultRespond;
  const listeners = new Set<() => void>();
  let log: HostRequest[] = [];
  let state: HostState = { requests: 0, inFlight: 0, aborted: 0, log };
  let notifyQueued = false;

  const publish = () => {
    state = {
      requests: log.length,
      inFlight: log.filter((r) => r.state === "in-flight").length,
      aborted: log.filter((r) => r.state === "aborted").length,
      log: log.slice(),
    };
    // Notify in a microtask: fetch may be called from anywhere (a render, a Yjs observer), and
    // subscribers re-render React components.
    if (notifyQueued) return;
    notifyQueued = true;
    queueMicrotask(() => {
      notifyQueued = false;
      for (const listener of [...listeners]) listener();
    });
  };

  const settle = (request: HostRequest, next: HostRequest["state"]) => {
    const i = log.indexOf(request);
    if (i >= 0) {
      log = log.slice();
      log[i] = { ...request, state: next };
    }
    publish();
  };

  const host: SimulatedHost = {
    delayMs: options.delayMs ?? 600,
    behavior: options.behavior ?? "ok",
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    reset() {
      log = [];
      publish();
    },
    fetch: (input, init) => {
      const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
      const url = input instanceof Request ? input.url : String(input);
      const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
      const request: HostRequest = {
        n: log.length + 1,
        url,
        method,
        headers: headersOf(init, input),
        state: "in-flight",
      };
      log = [...log, request];
      publish();

      const behavior = host.behavior;
      const delayMs = host.delayMs;
      return new Promise<Response>((resolve, reject) => {
        if (signal?.aborted) {
          settle(request, "aborted");
          reject(abortError(signal));
          return;
        }
        const answer = () => {
          signal?.removeEventListener("abort", onAbort);
          if (behavior === "fail") {
            settle(request, "failed");
            resolve(
              new Response(JSON.stringify({ error: "simulated failure" }), {
                status: 500,
                statusText: "Internal Server Error",
                headers: { "content-type": "application/json" },
              }),
            );
            return;
          }
          settle(request, "answered");
          resolve(
            new Response(JSON.stringify(respond(request)), {
              status: 200,
              headers: { "content-type": "application/json" },
            }),
          );
        };
        // A hung host never answers; only the caller's abort ends the request.
        const timer = behavior === "hang" ? undefined : setTimeout(answer, delayMs);
        function onAbort() {
          clearTimeout(timer);
          settle(request, "aborted");
          reject(abortError(signal!));
        }
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
  return host;
}
