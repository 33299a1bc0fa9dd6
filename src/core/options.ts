import { SharedFetchInputError, describe } from "./errors.ts";

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
