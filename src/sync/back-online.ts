import type { SyncClock } from "./sync-clock.ts";

/**
 * Back online (a laptop woken, Wi-Fi back), the socket of before may be half-open: the server
 * dropped it, and no close reaches us before the provider's 30 s silence check. Until then the
 * device "in sync" heard nobody, and a claim fenced through it went out after the fence's bound,
 * duplicating a request another device had in flight. So sync again over it: claims wait for that
 * (resync); unanswered, `replace` replaces the socket at once (and they wait for the new one).
 *
 * `check` sends a sync round over the current socket and returns true, only while in sync
 * (otherwise the provider is reconnecting anyway); it calls `answered(false)` once the round is
 * lost or unanswered within its bound. Returns the listener's removal.
 */
export function resyncWhenOnline(clock: SyncClock, check: (answered: (ok: boolean) => void) => boolean, replace: () => void): () => void {
  const onOnline = (): void => {
    if (!check((ok) => (ok ? clock.synced() : replace()))) return;
    // Out of sync until its answer, as a socket just opened.
    clock.lost();
    clock.opened();
  };
  const scope = globalThis as Partial<EventTarget>;
  scope.addEventListener?.("online", onOnline);
  return () => scope.removeEventListener?.("online", onOnline);
}
