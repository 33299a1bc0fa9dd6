import { abortError } from "./errors.ts";

type KeyLock = (key: string, signal: AbortSignal) => Promise<() => void>;
type Entry = { controller: AbortController; granted: Promise<() => void> };

/**
 * Key locks queued for before the claim that needs them, so that claim waits for no lock round
 * trip of its own: while the store starts (the lock is asked for beside the initial sync) and while
 * a live claimant of this browser works on the key (its crash releases its replica lock and the key
 * lock together; the first tab in this queue holds the key at that moment and takes over at once).
 * A lock granted here is only held: the engine decides as before, and lets it go when no claim
 * follows (the result arrived — it may come just after the grant, the ordering pitfall).
 */
export class KeyLockStandby {
  private readonly entries = new Map<string, Entry>();
  private stopped = false;

  constructor(private readonly keyLock: KeyLock) {}

  /** Queue for the key's lock, unless already queued. */
  want(key: string): void {
    if (this.stopped || this.entries.has(key)) return;
    const controller = new AbortController();
    const granted = this.keyLock(key, controller.signal);
    granted.catch(() => {});
    this.entries.set(key, { controller, granted });
  }

  /** No claim needs it: stop queuing, or let it go. */
  drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    letGo(entry);
  }

  /** The claim's key lock: the one queued for (held or not yet), else a new request. */
  take(key: string, signal: AbortSignal): Promise<() => void> {
    const entry = this.entries.get(key);
    if (!entry) return this.keyLock(key, signal);
    this.entries.delete(key);
    if (signal.aborted) {
      letGo(entry);
      return Promise.reject(abortError(signal.reason));
    }
    signal.addEventListener("abort", () => letGo(entry), { once: true });
    return entry.granted;
  }

  stop(): void {
    for (const entry of this.entries.values()) letGo(entry);
    this.entries.clear();
  }

  /** Stops for good (destroy); `stop` alone (a page frozen) lets the next start queue again. */
  destroy(): void {
    this.stopped = true;
    this.stop();
  }
}

function letGo(entry: Entry): void {
  entry.controller.abort();
  entry.granted.then(
    (release) => release(),
    () => {},
  );
}
