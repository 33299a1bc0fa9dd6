/**
 * Web Locks that refuse every request, as a browser's do in an opaque origin or a sandboxed iframe
 * (a `SecurityError`). The store warns on the console once and its devtools tell the refusal (the
 * Timeline's line, the settle window's reason): the scenario narrates from those.
 */
import type { LockManagerLike } from "../../src/core/locks.ts";

/** A tab's lock manager: every request and query is refused. */
export function refusingLocks(): LockManagerLike {
  const refuse = () => Promise.reject(new DOMException("The request was denied.", "SecurityError"));
  return { request: refuse, query: refuse };
}
