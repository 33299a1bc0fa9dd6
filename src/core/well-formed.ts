import { MAX_JSON_DEPTH } from "./records.ts";

/** A surrogate escape in JSON text: only through one can JSON.parse yield a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * JSON.parse(text) as every replica reads it back from the doc. The doc encodes strings (values
 * and keys) as UTF-8, which turns a lone surrogate into U+FFFD; a server that cut a string in the
 * middle of an emoji sends one as an escape ("\ud83d"). Without this the writer would show other
 * data than its peers, and two keys differing only there would be two keys for it and one for them.
 */
export function parseShareableJson(text: string): unknown {
  const data: unknown = JSON.parse(text);
  return SURROGATE_ESCAPE.test(text) ? wellFormed(data, 0) : data;
}

function wellFormed(value: unknown, depth: number): unknown {
  if (typeof value === "string") return value.replace(LONE_SURROGATE, "\uFFFD");
  // Deeper than any replica reads: refused whole by the validator, no need to walk it.
  if (typeof value !== "object" || value === null || depth > MAX_JSON_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => wellFormed(item, depth + 1));
  // Defined, not assigned: an own "__proto__" key stays a key (for the validator to refuse), and
  // keys that now coincide keep the first one's place and the last one's value, as a peer's decoder does.
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, wellFormed(key, depth) as string, {
      value: wellFormed(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
