/** Thrown (as a rejection) for a request that cannot be issued; nothing was written for it. */
export class SharedFetchInputError extends TypeError {
  override readonly name = "SharedFetchInputError";
}

/** A fresh AbortError each time (never a shared module-level instance). */
export function abortError(reason?: unknown): Error {
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  const message = typeof reason === "string" ? reason : "The operation was aborted";
  if (typeof DOMException === "function") return new DOMException(message, "AbortError");
  const error = new Error(message);
  error.name = "AbortError";
  return error;
}

export function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

/** What a value is (`a number`, `an array`, `a Headers`), without quoting it (a value that may hold a secret). */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? `${/^[AEIO]/.test(name) ? "an" : "a"} ${name}` : "an object";
}

/** Shortens a value for an error message so a huge or hostile input cannot flood a log. */
export function describe(value: unknown): string {
  let text: string;
  try {
    text =
      typeof value === "string"
        ? JSON.stringify(value)
        : typeof value === "object"
          ? (JSON.stringify(value) ?? String(value))
          : // A bigint with its "n": "got 10" would read as the valid number it is not.
            typeof value === "bigint"
            ? `${value}n`
            : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * A URL as an error message may show it: no userinfo, no query, no fragment (they may carry a
 * password or a token). Also for text that does not parse as a URL.
 */
export function shownUrl(url: string): string {
  // Leading spaces and control characters, which the URL parser drops, do not hide userinfo.
  let start = 0;
  while (start < url.length && url.charCodeAt(start) <= 0x20) start++;
  if (start === url.length) start = 0; // nothing but blanks: shown as given
  const rest = url.slice(start);
  const cut = rest.search(/[?#]/);
  const head = cut >= 0 ? rest.slice(0, cut) : rest;
  const prefix = /^(?:[a-z][a-z0-9+.-]*:)?[/\\]*/i.exec(head)![0];
  const end = prefix.length + rest.slice(prefix.length).search(/[/\\?#]|$/);
  const authority = rest.slice(prefix.length, end);
  const inAuthority = authority.lastIndexOf("@");
  // A password pasted unencoded may hold "/", "?" or "#" (a base64 token): the parser's authority
  // ends there, before an "@" that closes the password. An "@" further on, past userinfo or past
  // an authority that is no host[:port], hides the whole head; an "@" in the path or query of a
  // plain host (a versioned module, an e-mail address) hides nothing.
  const cutShort = rest.includes("@", end) && (inAuthority >= 0 || !/^(\[[^\]]*\]|[^:]*)(:\d*)?$/.test(authority));
  const text = cutShort ? `${prefix}…` : inAuthority >= 0 ? `${prefix}…@${head.slice(prefix.length + inAuthority + 1)}` : head;
  return describe(cut >= 0 ? `${text}?…` : text);
}

/**
 * A refused value as an error shows it: a string as a URL (no query, fragment or userinfo), a
 * number or boolean as is, anything else by its kind only (a URL object, a request with header
 * values, a session object: each may hold a token).
 */
export function shownValue(value: unknown): string {
  if (typeof value === "string") return shownUrl(value);
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") return String(value);
  return kindOf(value);
}
