import { boundedMemo } from "../core/bounded-memo.ts";
import { SharedFetchInputError, shownUrl } from "../core/errors.ts";
import { isPlainObject } from "../core/request.ts";
import type { SharedRequest } from "../core/types.ts";

/**
 * Relative URLs resolve against the page's `location.href` (so the key holds the absolute URL and
 * two pages of one origin share it). Outside a browser there is nothing to resolve against.
 */
export function absoluteUrl(url: string): string {
  if (typeof url !== "string") return url;
  if (url.trim() === "") return url; // normalizeRequest names the problem
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  const base = (globalThis as { location?: { href?: unknown } }).location?.href;
  if (typeof base !== "string") {
    throw new SharedFetchInputError(
      `shared-fetch: url ${shownUrl(url)} is relative and there is no page location to resolve it against (outside a browser); pass an absolute URL`,
    );
  }
  return resolved(`${base}\n${url}`, () => new URL(url, base).href);
}

/** The same relative URL resolves on every render: remembered per page location. */
const resolved = boundedMemo();

export function toRequest(req: string | SharedRequest): SharedRequest {
  if (typeof req === "string") return { url: absoluteUrl(req) };
  // A plain object only: a spread `Request` is `{ url }` alone (its method, headers and body are
  // getters), so a POST with an Authorization header went out as a bare GET. normalizeRequest names it.
  if (isPlainObject(req) && typeof req.url === "string") return { ...req, url: absoluteUrl(req.url) };
  return req;
}
