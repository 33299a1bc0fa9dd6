export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** Runs at most `max` tasks at once, first come first served. */
export function createLimiter(max: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    // Hand the slot straight to the next waiter: decrementing first would let a newcomer
    // slip in between and push the count over `max`.
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return async (task) => {
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
