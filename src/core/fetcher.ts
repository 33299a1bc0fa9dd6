import { isIdempotent, type NormalizedRequest } from "./request.ts";
import { abortError } from "./errors.ts";

export type OutcomeError = { message: string; status?: number };
/** `at`: when the work was asked for, on this replica's clock (recorded with the outcome). */
export type Outcome = ({ ok: true; data: unknown } | { ok: false; error: OutcomeError }) & { at?: number };

const EXCERPT = 200;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1)}…` : flat;
}

/**
 * One HTTP attempt. Resolves with an outcome for every HTTP or network failure; rejects only with
 * an AbortError when `signal` aborts, so an aborted attempt can never be recorded as a failure.
 */
export async function performFetch(
  fetchFn: typeof fetch,
  req: NormalizedRequest,
  ctx: { signal: AbortSignal; idempotencyKey: string },
): Promise<Outcome> {
  const headers: Record<string, string> = { ...req.headers };
  // Invariant 12: a takeover may send this request twice; the key lets the host drop the copy.
  if (!isIdempotent(req.method) && !("idempotency-key" in headers)) headers["idempotency-key"] = ctx.idempotencyKey;
  let response: Response;
  try {
    response = await fetchFn(req.url, { method: req.method, headers, body: req.body, signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) throw abortError(ctx.signal.reason);
    return { ok: false, error: { message: `network error: ${messageOf(error)}` } };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (ctx.signal.aborted) throw abortError(ctx.signal.reason);
    return { ok: false, error: { message: `reading the response failed: ${messageOf(error)}`, status: response.status } };
  }
  if (!response.ok) {
    const body = excerpt(text);
    const reason = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    return { ok: false, error: { message: `HTTP ${reason} from ${req.method} ${req.url}${body ? `: ${body}` : ""}`, status: response.status } };
  }
  if (req.parse === "text" || req.method === "HEAD") return { ok: true, data: text };
  if (text.trim() === "" && (response.status === 204 || response.status === 205)) return { ok: true, data: null };
  try {
    return { ok: true, data: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, error: { message: `response of ${req.method} ${req.url} is not valid JSON: ${excerpt(text) || "(empty body)"}`, status: response.status } };
  }
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
