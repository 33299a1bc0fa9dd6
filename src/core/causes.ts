/**
 * Words for a failure, chosen from fixed tables only. A dependency's own error text may quote the
 * URL (with its query or password), a header value or the body, and whatever is built from it ends
 * up in the shared doc, readable by every replica (invariant 13). So no message here ever copies
 * text from an error: only a known code, a status number, or a position, is carried over.
 */

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ECONNABORTED: "connection aborted",
  EPIPE: "connection closed",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "no response headers in time",
  UND_ERR_BODY_TIMEOUT: "response body timed out",
  UND_ERR_SOCKET: "socket closed",
  UND_ERR_CLOSED: "socket closed",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "response shorter or longer than its Content-Length",
  UND_ERR_REQ_CONTENT_LENGTH_MISMATCH: "request body does not match its Content-Length",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed TLS certificate",
  SELF_SIGNED_CERT_IN_CHAIN: "self-signed TLS certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS certificate does not name the host",
};

/** "network error" plus, when a known code is found in the error or its causes, what it means. */
export function networkCause(error: unknown): string {
  const code = knownCode(error);
  return code ? `network error (${NETWORK_CODES[code]})` : "network error";
}

function knownCode(error: unknown): string | undefined {
  let current = error;
  // A few levels: fetch wraps the socket's error in a TypeError("fetch failed", { cause }).
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && Object.hasOwn(NETWORK_CODES, code)) return code;
    // Some stacks carry the bare code as the message (e.g. new Error("ECONNREFUSED")).
    if (typeof message === "string" && Object.hasOwn(NETWORK_CODES, message)) return message;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** "syntax error at line 3, column 7" from a parser's error, keeping only the numbers. */
export function syntaxCause(error: unknown): string {
  const loc = (error as { loc?: { line?: unknown; column?: unknown } } | null)?.loc;
  if (loc && Number.isInteger(loc.line) && Number.isInteger(loc.column))
    return `syntax error at line ${String(loc.line)}, column ${String(loc.column)}`;
  const message = error instanceof Error ? error.message : "";
  const at = /\((\d+):(\d+)\)|:(\d+):(\d+)\s*$/.exec(message);
  if (!at) return "syntax error";
  return `syntax error at line ${at[1] ?? at[3]}, column ${at[2] ?? at[4]}`;
}

const REASONS: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  203: "Non-Authoritative Information",
  204: "No Content",
  205: "Reset Content",
  206: "Partial Content",
  // A fetch that follows redirects still meets these: a 304 to a conditional request, a 3xx without Location.
  300: "Multiple Choices",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  305: "Use Proxy",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  417: "Expectation Failed",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  423: "Locked",
  425: "Too Early",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  507: "Insufficient Storage",
  508: "Loop Detected",
  511: "Network Authentication Required",
};

/** "HTTP 503 Service Unavailable": the standard reason phrase (RFC 9110), never the host's statusText. */
export function httpStatus(status: number): string {
  const reason = REASONS[status];
  return reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
}
