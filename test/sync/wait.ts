// Tests wait on events, never on fixed sleeps; vitest's test timeout is the only clock.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Emitter = { on(name: any, f: Listener): unknown; off(name: any, f: Listener): unknown };

/** Resolves once `check` holds: checked now, then after every `event` (with the event's arguments). */
export function until(emitter: Emitter, event: string, check: (...args: unknown[]) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const listener = (...args: unknown[]): void => {
      if (!check(...args)) return;
      emitter.off(event, listener);
      resolve();
    };
    if (check()) resolve();
    else emitter.on(event, listener);
  });
}

/** Resolves with the arguments of the next `event` that satisfies `match` (not checked now). */
export function nextEvent<A extends unknown[]>(emitter: Emitter, event: string, match: (...args: A) => boolean = () => true): Promise<A> {
  return new Promise((resolve) => {
    const listener = (...args: unknown[]): void => {
      if (!match(...(args as A))) return;
      emitter.off(event, listener);
      resolve(args as A);
    };
    emitter.on(event, listener);
  });
}
