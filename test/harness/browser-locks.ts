/**
 * One browser's lock state, as `navigator.locks.query()` reports it (the tabs' flush counts tabs
 * by it). `extra`: names reported held by nobody here, e.g. a frozen tab that never answers.
 */
export function browserLocks(extra: string[] = []) {
  const held = new Map<string, number>();
  return {
    request(name: string, _options: unknown, callback: () => Promise<void>) {
      held.set(name, (held.get(name) ?? 0) + 1);
      return Promise.resolve(callback()).finally(() => {
        const n = (held.get(name) ?? 1) - 1;
        if (n > 0) held.set(name, n);
        else held.delete(name);
      });
    },
    query: async () => ({ held: [...held.keys(), ...extra].map((name) => ({ name })) }),
  };
}
