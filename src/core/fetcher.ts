import { httpStatus, networkCause } from "./causes.ts";
import { abortError } from "./errors.ts";
import { isIdempotent, requestLabel, type NormalizedRequest } from "./request.ts";
import { utf8Length } from "./utf8.ts";
import { parseShareableJson } from "./well-formed.ts";

export type OutcomeError = { message: string; status?: number };
/**
 * `at`: when the work was asked for, on this replica's clock (recorded with the outcome). `inv`:
 * the invalidation it is recorded stale for (records.ts), kept with it.
 */
export type Outcome = ({ ok: true; data: unknown } | { ok: false; error: OutcomeError }) & { at?: number; inv?: number | undefined };

/**
 * Default bound on one response body written into the shared doc (UTF-8 bytes). Every replica
 * receives and keeps what one writes, so a larger response is recorded as an error instead.
 */
export const DEFAULT_MAX_RESULT_BYTES = 1_048_576;

export type FetchContext = { signal: AbortSignal; idempotencyKey: string; maxResultBytes?: number };

/**
 * One HTTP attempt. Resolves with an outcome for every HTTP or network failure; rejects only with
 * an AbortError when `signal` aborts, so an aborted attempt can never be recorded as a failure.
 *
 * Every message is built from the request's label (method, origin, path) and a status or a
 * classified cause: never from the URL's query, a header, the body, or a dependency's error text,
 * any of which may quote a secret (invariant 13).
 */
export async function performFetch(fetchFn: typeof fetch, req: NormalizedRequest, ctx: FetchContext): Promise<Outcome> {
  const label = requestLabel(req);
  const max = ctx.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const headers: Record<string, string> = { ...req.headers };
  // Invariant 12: a takeover may send this request twice; the key lets the host drop the copy.
  if (!isIdempotent(req.method) && !("idempotency-key" in headers)) headers["idempotency-key"] = ctx.idempotencyKey;
  let response: Response;
  try {
    response = await fetchFn(req.url, { method: req.method, headers, body: req.body, signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) throw abortError(ctx.signal.reason);
    return failure(`${label} failed: ${networkCause(error)}`);
  }
  const { status } = response;
  if (!response.ok) {
    // Nobody reads an error page: its text may echo the request back.
    cancel(response);
    return failure(`${httpStatus(status)} from ${label}`, status);
  }
  // A HEAD's Content-Length is the GET's body's: it has none to share.
  const declared = req.method === "HEAD" ? 0 : Number(response.headers?.get("content-length") ?? Number.NaN);
  if (declared > max) {
    cancel(response);
    return failure(`result cannot be shared: the response to ${label} is ${formatSize(declared)}, more than maxResultBytes (${max} bytes)`);
  }
  let text: string | undefined;
  try {
    text = await readCapped(response, max);
  } catch (error) {
    if (ctx.signal.aborted) throw abortError(ctx.signal.reason);
    // A network error, status or not: the page's own unload among its causes (see inNextPageTask).
    return failure(`reading the response of ${label} failed: ${networkCause(error)}`);
  }
  if (text === undefined) return failure(`result cannot be shared: the response to ${label} is more than maxResultBytes (${max} bytes)`);
  if (req.parse === "text") return { ok: true, data: text };
  // A POST, PUT, PATCH or DELETE answered 200 or 201 with no body succeeded (a mutation's usual
  // answer): null, as for 204 — also for a POST used as a query, whose server answered so, and for
  // a HEAD, whose answer never has a body (TanStack's `res.json()` would throw there). A GET's
  // or OPTIONS' empty body, which asks for a representation, stays an error: no null over a result.
  if (text.trim() === "" && (status === 204 || status === 205 || (req.method !== "GET" && req.method !== "OPTIONS")))
    return { ok: true, data: null };
  try {
    return { ok: true, data: parseShareableJson(text) };
  } catch {
    // Its media type alone (a token, no parameter): `text/html` says a dev server or a host answered
    // an unknown path with its HTML page, what `res.json()`'s "Unexpected token '<'" told.
    const type = /^[\w.+-]+\/[\w.+-]+/.exec(response.headers?.get("content-type") as string);
    return failure(`response of ${label} is not valid JSON (${httpStatus(status)}${type ? `, ${type}` : ""})`, status);
  }
}

function failure(message: string, status?: number): Outcome {
  return { ok: false, error: status === undefined ? { message } : { message, status } };
}

function cancel(response: Response): void {
  response.body?.cancel().catch(() => {});
}

/**
 * The body as text, or undefined once it passes `max` UTF-8 bytes. Bytes are counted as they
 * arrive, so a huge body is dropped after `max` bytes rather than read whole (Content-Length may
 * be absent or wrong).
 */
async function readCapped(response: Response, max: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) {
    // A Response-like object without a stream (custom fetch): measure its text.
    const text = await response.text();
    return utf8Length(text) > max ? undefined : text;
  }
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      reader.cancel().catch(() => {});
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB (${bytes} bytes)`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

/** For errors that never reach the doc (thrown to the caller). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
