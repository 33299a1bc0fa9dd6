import { boundedMemo } from "./bounded-memo.ts";
import { SharedFetchInputError, describe, kindOf, shownUrl, shownValue } from "./errors.ts";
import type { SharedRequest } from "./types.ts";
import { utf8Length } from "./utf8.ts";

export const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type Method = (typeof METHODS)[number];

/** RFC 9110 §9.2.2: repeating these has the effect of sending them once. */
const IDEMPOTENT = new Set<Method>(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** A validated request: method upper-cased, header names lower-cased, parse mode filled in. */
export type NormalizedRequest = {
  url: string;
  method: Method;
  headers: Record<string, string>;
  body: string | undefined;
  parse: "json" | "text";
  callId?: string;
};

export function isIdempotent(method: Method): boolean {
  return IDEMPOTENT.has(method);
}

function fail(message: string): never {
  throw new SharedFetchInputError(message);
}

export function parseHttpUrl(url: unknown, what = "url"): URL {
  if (typeof url !== "string") fail(`shared-fetch: ${what} must be a string, got ${shownValue(url)}`);
  if (url.trim() === "") fail(`shared-fetch: ${what} is empty; expected an absolute http(s) URL`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    fail(`shared-fetch: ${what} ${shownUrl(url)} is not a valid absolute URL; expected e.g. "https://host/path"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    fail(`shared-fetch: ${what} ${shownUrl(parsed.href)} has protocol ${parsed.protocol}; expected http: or https:`);
  }
  // fetch refuses credentials in a URL, and its error would quote them; the URL is also hashed
  // into the key and shown in labels, so they are refused here without repeating them.
  if (parsed.username !== "" || parsed.password !== "") {
    fail(
      `shared-fetch: ${what} ${shownUrl(parsed.href)} carries credentials (user:password@); fetch refuses them: send them in an Authorization header instead`,
    );
  }
  return parsed;
}

/** fetch refuses these in a header value (Fetch standard: a header value has no NUL, CR or LF). */
const FORBIDDEN_VALUE_BYTES: Record<string, string> = { "\0": "NUL", "\r": "CR", "\n": "LF" };

/** Names the header and the problem, never the value (it is often a token). */
function checkHeaderValue(name: string, value: string): void {
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    const forbidden = FORBIDDEN_VALUE_BYTES[ch];
    if (forbidden)
      fail(
        `shared-fetch: the value of header ${describe(name)} holds a ${forbidden} byte at position ${i}; fetch refuses header values with NUL, CR or LF`,
      );
    if (ch.charCodeAt(0) > 0xff) {
      fail(
        `shared-fetch: the value of header ${describe(name)} holds a character beyond U+00FF at position ${i}; header values are bytes (encode it, e.g. with encodeURIComponent)`,
      );
    }
  }
}

/**
 * Fetch strips a header value's leading and trailing spaces and tabs (its normalisation; CR and LF
 * are refused above): the key holds the value as sent, or one request would make two keys.
 * A loop, not a regex: `[\t ]+$` backtracks quadratically over a long run of inner spaces.
 */
function trimSpacesAndTabs(value: string): string {
  const blank = (ch: string | undefined) => ch === " " || ch === "\t";
  let start = 0;
  let end = value.length;
  while (start < end && blank(value[start])) start++;
  while (end > start && blank(value[end - 1])) end--;
  return value.slice(start, end);
}

const validHrefs = boundedMemo();

/**
 * The URL fetch requests, remembered for a valid URL seen before (see boundedMemo): without its
 * fragment, which fetch never sends, so `/x#a` and `/x#b` are one request and one key.
 */
export function httpHref(url: unknown): string {
  const href = () => {
    const parsed = parseHttpUrl(url);
    parsed.hash = "";
    return parsed.href;
  };
  return typeof url === "string" ? validHrefs(url, href) : href();
}

/** `${origin}${pathname}` of a normalised http(s) href (neither holds "?" or "#" unencoded). */
export function originAndPath(href: string): string {
  const cut = href.search(/[?#]/);
  return cut < 0 ? href : href.slice(0, cut);
}

/** Headers of the connection, not the request: Node's fetch throws on them (browsers forbid and drop them). */
const CONNECTION_HEADERS = new Set(["connection", "transfer-encoding", "keep-alive", "upgrade", "expect"]);

/** The fields of a request (SharedRequest). */
export const REQUEST_FIELD = /^(url|method|headers|body|parse|callId)$/;

/** Validates and normalises; throws SharedFetchInputError naming the bad value. */
export function normalizeRequest(input: unknown): NormalizedRequest {
  const req: Partial<SharedRequest> =
    typeof input === "string"
      ? { url: input }
      : // A store is a plain object too: its first field read as "unknown request field `replicaId`".
        // One with a url is a request, however odd its other fields.
        typeof (input as { ensure?: unknown } | null)?.ensure === "function" && (input as { url?: unknown }).url === undefined
        ? fail("shared-fetch: got a SharedFetchStore where a request was expected")
        : isPlainObject(input)
          ? (input as Partial<SharedRequest>)
          : fail(`shared-fetch: request must be a URL string or { url, ... }, got ${shownValue(input)}`);
  // fetch's other options (credentials, cache, signal, …) were dropped unsent, and unkeyed.
  for (const name in req)
    if ((req as Record<string, unknown>)[name] !== undefined && !REQUEST_FIELD.test(name))
      fail(`shared-fetch: unknown request field ${describe(name)}; expected url, method, headers, body, parse or callId`);
  const url = httpHref(req.url);
  const rawMethod = req.method ?? "GET";
  if (typeof rawMethod !== "string") fail(`shared-fetch: method must be a string, got ${describe(rawMethod)}`);
  const method = rawMethod.toUpperCase() as Method;
  if (!METHODS.includes(method)) fail(`shared-fetch: unsupported method ${describe(rawMethod)}; expected one of ${METHODS.join(", ")}`);
  const headers: Record<string, string> = {};
  if (req.headers !== undefined) {
    // Headers and bodies may carry credentials: a refusal names what they are, never their contents.
    if (!isPlainObject(req.headers)) fail(`shared-fetch: headers must be a plain object of strings, got ${kindOf(req.headers)}`);
    for (const name of Object.keys(req.headers)) {
      const value = (req.headers as Record<string, unknown>)[name];
      if (typeof value !== "string") fail(`shared-fetch: header ${describe(name)} must be a string, got ${kindOf(value)}`);
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
        fail(`shared-fetch: header name ${describe(name)} is not a valid HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`);
      checkHeaderValue(name, value);
      const lower = name.toLowerCase();
      if (CONNECTION_HEADERS.has(lower))
        fail(
          `shared-fetch: header ${describe(name)} belongs to the HTTP connection, which fetch manages: browsers drop it, Node's fetch refuses it (Connection but for close or keep-alive)`,
        );
      if (lower in headers) fail(`shared-fetch: header ${describe(name)} is given twice (names are case-insensitive)`);
      headers[lower] = trimSpacesAndTabs(value);
    }
  }
  const body = req.body;
  if (body !== undefined && typeof body !== "string") {
    fail(`shared-fetch: unsupported body: ${kindOf(body)}; expected a string (e.g. JSON.stringify(value))`);
  }
  if (body !== undefined && (method === "GET" || method === "HEAD")) fail(`shared-fetch: a ${method} request cannot carry a body`);
  // fetch sets the body's length itself: browsers drop this header, Node's fetch fails a request
  // whose value is not the body's exact length. That one is kept out of the key, as fetch sends it.
  const length = headers["content-length"];
  if (length !== undefined) {
    const bytes = utf8Length(body ?? "");
    if (length !== String(bytes))
      fail(`shared-fetch: header "Content-Length" does not match the body, ${bytes} bytes long: leave it to fetch`);
    delete headers["content-length"];
  }
  const parse = req.parse ?? "json";
  if (parse !== "json" && parse !== "text") fail(`shared-fetch: parse must be "json" or "text", got ${describe(parse)}`);
  const callId = req.callId;
  if (callId !== undefined && typeof callId !== "string") fail(`shared-fetch: callId must be a string, got ${describe(callId)}`);
  // A HEAD's empty answer is read as a 204's is: null for "json", "" for "text" (performFetch).
  return { url, method, headers, body, parse, callId };
}

/** A field of a peer's or caller's object, read only if it is the object's own (never `__proto__`-shaped). */
export function own(record: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** Replica ids, nonces and browser ids are non-empty strings of at most this many characters. */
export const MAX_ID_LENGTH = 200;

export function isId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_ID_LENGTH;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What the doc may show about a request: no query string, header values or body (invariant 13). */
export function requestLabel(req: { url: string; method?: string }): string {
  const u = new URL(req.url);
  return `${req.method ?? "GET"} ${u.origin}${u.pathname}${u.search ? "?…" : ""}`;
}
