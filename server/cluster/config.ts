/**
 * The cluster's configuration comes from environment variables. A bad value stops the process at
 * start with one line naming the variable and the value, instead of a NaN port, a debounce that
 * never stores or a secret anyone can guess, found only at the first client.
 */

/** Prints `message` and exits 1: nothing has started yet, so there is nothing to stop. */
export function configError(message: string): never {
  console.error(message);
  process.exit(1);
}

/** The variable's value, or `fallback` when it is unset or empty (no fallback: required). */
export function stringEnv(name: string, fallback?: string): string {
  const value = process.env[name];
  if (value !== undefined && value !== "") return value;
  if (fallback !== undefined) return fallback;
  return configError(`environment variable ${name} is required`);
}

/** An integer in [min, max]; `fallback` when unset or empty. */
export function integerEnv(name: string, limits: { min: number; max?: number; fallback?: number }): number {
  const raw = process.env[name];
  if ((raw === undefined || raw === "") && limits.fallback !== undefined) return limits.fallback;
  const text = stringEnv(name);
  const value = Number(text);
  const max = limits.max ?? Number.MAX_SAFE_INTEGER;
  if (!/^\s*-?\d+\s*$/.test(text) || value < limits.min || value > max) {
    const range = limits.max === undefined ? `≥ ${limits.min}` : `from ${limits.min} to ${limits.max}`;
    return configError(`environment variable ${name} must be an integer ${range}, got ${JSON.stringify(text)}`);
  }
  return value;
}

export const portEnv = (name: string): number => integerEnv(name, { min: 1, max: 65535 });

/** A room-signing secret of at least 16 characters. Its value is never printed, only its length. */
export function secretEnv(name: string, fallback?: string): string {
  const value = stringEnv(name, fallback);
  if (value.length < 16) configError(`environment variable ${name} must be at least 16 characters, got ${value.length}`);
  return value;
}
