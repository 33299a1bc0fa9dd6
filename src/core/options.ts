import { SharedFetchInputError, describe } from "./errors.ts";
import { REQUEST_FIELD } from "./request.ts";

export type NumberRule = {
  /** "positive" (> 0, the default) or "non-negative" (≥ 0). */
  min?: "positive" | "non-negative";
  integer?: boolean;
  /** Inclusive upper bound; Infinity is accepted only when max is Infinity (the default). */
  max?: number;
  /** How a bad value is reported (default: SharedFetchInputError naming option, value and expectation). */
  error?: (name: string, value: unknown, expected: string) => Error;
};

/**
 * The one check for numeric options: where the option is given, a bad value fails with a message
 * naming the option, the value and what was expected — it never reaches the doc.
 */
export function numberOption(name: string, value: unknown, fallback: number, rule: NumberRule = {}): number {
  if (value === undefined) return fallback;
  const { min = "positive", integer = false, max = Infinity } = rule;
  const ok =
    typeof value === "number" &&
    !Number.isNaN(value) &&
    (min === "positive" ? value > 0 : value >= 0) &&
    value <= max &&
    (!integer || Number.isInteger(value) || value === Infinity);
  if (ok) return value;
  const expected = `a ${min} ${integer ? "integer" : "number"}${max === Infinity ? "" : ` at most ${max}`}`;
  if (rule.error) throw rule.error(name, value, expected);
  throw new SharedFetchInputError(`shared-fetch: ${name} must be ${expected}, got ${describe(value)}`);
}

const warned = new Set<string>();

/**
 * Warns of each key of `options` that `known` lacks, naming the closest known option where the key
 * is plausibly its typo, else every known option: a typo (`indexedDB` for `indexeddb`) would
 * otherwise do nothing, silently. A warning, not an error: an
 * app may hand several entry points one shared config object. Once per entry point and key for the
 * page's life (a component that connects at each mount, and serveBrowserReplica's options checked
 * again by createBrowserReplica, do not repeat it; the same key misused at another entry point, a
 * second component's, is told again there).
 */
export function warnUnknownOptions(fn: string, options: unknown, known: object): void {
  // Before the checks that refuse, so a typo of a required option (`nmae`) is named beside the refusal.
  if (typeof options === "object")
    for (const key in options)
      if (!(key in known)) {
        // TanStack's `staleTime` is no typo of `maxAgeMs`, but is meant as it wherever that is known.
        const meant = key === "staleTime" && "maxAgeMs" in known;
        const near = meant ? "maxAgeMs" : Object.keys(known).reduce((a, b) => (distance(key, b) < distance(key, a) ? b : a));
        // A suggestion only within TypeScript's bound for "Did you mean" (0.4 edits per letter):
        // `connect` is no typo of `room`, and naming it would send the reader the wrong way.
        warnOnce(
          fn,
          key,
          meant || distance(key, near) <= key.length * 0.4 ? `did you mean \`${near}\`?` : `known: ${Object.keys(known).join(", ")}`,
        );
      }
}

/**
 * A request's field among a hook's options (`useSharedFetch(url, { headers })`): TypeScript refuses
 * it, but in JavaScript the options are TanStack's, so the Authorization header went unsent, silently.
 */
export function warnRequestFields(fn: string, options: unknown, hint?: string): void {
  for (const key in options as object) if (REQUEST_FIELD.test(key)) warnOnce(fn, key, hint ?? `it belongs in the request: { url, ${key} }`);
}

function warnOnce(fn: string, key: string, hint: string): void {
  if (warned.has(fn + key)) return;
  warned.add(fn + key);
  console.warn(`shared-fetch: ${fn} ignores \`${key}\`; ${hint}`);
}

/** Edit distance, case aside (`retireAfterMS` is one step from nothing but `retireAfterMs`). */
function distance(a: string, b: string): number {
  b = b.toLowerCase();
  let row = [...Array(b.length + 1).keys()];
  for (const c of a.toLowerCase()) {
    const next = [row[0]! + 1];
    for (let j = 0; j < b.length; j++) next.push(Math.min(row[j + 1]! + 1, next[j]! + 1, row[j]! + +(c !== b[j])));
    row = next;
  }
  return row.pop()!;
}
