/**
 * HTTP through Mock Service Worker: a story's replicas call the real `fetch` on a same-origin URL
 * under /api/, the service worker (.storybook/public/mockServiceWorker.js, served by Storybook)
 * intercepts it, and the page's handler below answers it from the story's counting host
 * (sim/host.ts), so the timeline and the play functions count and name every request as with
 * the in-page host. Same origin: the sender's tag and an Idempotency-Key need no CORS preflight.
 */
import { http, type HttpHandler } from "msw";
import type { Host } from "../../sim/host.ts";

/** Where mocked requests go: the preview page's own origin (the store keys absolute URLs). */
export const MOCKED_API = `${globalThis.location?.origin ?? "http://localhost"}/api`;

/** Names the replica that sent a request; added by `workerFetch` below the store, so not part of any key. */
const SENDER = "x-shared-fetch-replica";
/**
 * Names the call, so the handler (in the same page) finds the host of the scenario that sent it
 * and the AbortSignal the store passed: the worker forwards a request without either, and a real
 * network would carry the abort to the host. Per call, not per page: a docs page mounts every
 * story of a file at once, each answered by its own host.
 */
const CALL = "x-shared-fetch-call";
const calls = new Map<string, { host: Host | undefined; signal: AbortSignal | undefined }>();
let sent = 0;

/**
 * A replica's `fetch`: the browser's own, tagged with the sender's name (as an app tags a client
 * id); `host` answers it (the real tab's page passes none: its handler is given the host).
 */
export function workerFetch(from: string, host?: Host, fetchFn: typeof fetch = globalThis.fetch.bind(globalThis)): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const call = `${from}-${++sent}`;
    headers.set(SENDER, from);
    headers.set(CALL, call);
    calls.set(call, { host, signal: init?.signal ?? undefined });
    return fetchFn(input, { ...init, headers }).finally(() => calls.delete(call));
  };
}

/**
 * The handlers a story installs in its `beforeEach` (`msw.use(...mockedApi())`). `hostFetch`
 * overrides where a request is answered (a real tab's page hands it to its parent's host).
 */
export function mockedApi(hostFetch?: (from: string | undefined) => typeof fetch): HttpHandler[] {
  return [
    http.all(`${MOCKED_API}/*`, async ({ request }) => {
      const call = calls.get(request.headers.get(CALL) ?? "");
      const host = call?.host;
      const from = request.headers.get(SENDER) ?? undefined;
      if (!host && !hostFetch) return new Response(JSON.stringify({ error: "no story host is mounted" }), { status: 503 });
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        if (name !== SENDER && name !== CALL) headers[name] = value;
      });
      const signal = call?.signal ?? request.signal;
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
      const send = hostFetch ? hostFetch(from) : from === undefined ? host!.fetch : host!.fetchAs(from);
      // An aborted call: its fetch has already rejected in the page; answer the worker with a network error.
      return send(request.url, { method: request.method, headers, ...(body !== undefined ? { body } : {}), signal }).catch(() =>
        Response.error(),
      );
    }),
  ];
}

/** The page is controlled by the mock service worker: its requests did leave through real `fetch`. */
export function workerScript(win: Window = window): string | undefined {
  return win.navigator.serviceWorker?.controller?.scriptURL;
}
