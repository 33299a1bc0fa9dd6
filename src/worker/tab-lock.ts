import { holdLock, type LockManagerLike } from "./port.ts";

/** A tab's lock, which the tab holds for its life: the worker queues on it, and its grant means the tab died. */
export type TabLock = {
  readonly name: string;
  /** Asks for it, once for every hello: resolves once granted. */
  hold(): Promise<() => void>;
  /** Whether `held` is still the request for it (not let go of since, nor asked for again). */
  holds(held: Promise<() => void>): boolean;
  /** Lets go of it, now or once granted. */
  letGo(): void;
};

/**
 * The lock of the tab `tabId`, asked for or held. One request for every hello: a second request
 * of this exclusive lock would queue behind the first for the tab's life (a page hidden and shown
 * again before the first grant said hello twice, and the second never went out).
 */
export function tabLock(locks: LockManagerLike, tabId: string): TabLock {
  const name = `shared-fetch:tab:${tabId}`;
  let held: Promise<() => void> | undefined;
  return {
    name,
    hold: () => (held ??= holdLock(locks, name)),
    holds: (request) => held === request,
    letGo() {
      const request = held;
      held = undefined;
      request?.then(
        (release) => release(),
        () => {},
      );
    },
  };
}
