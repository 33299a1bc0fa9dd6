/**
 * A page that is hidden for good (unloaded, or put into the back/forward cache) or frozen cannot
 * finish its requests: release its claims so other tabs take over now instead of after a lease,
 * and let go of its Web Lock (a held lock keeps a page out of the back/forward cache).
 */
export function watchPageLifecycle(handlers: { suspend(): void; resume(): void }): () => void {
  const win = (globalThis as { window?: Window }).window;
  const doc = (globalThis as { document?: Document }).document;
  if (!win || typeof win.addEventListener !== "function") return () => {};
  const onHide = () => handlers.suspend();
  const onShow = (event: PageTransitionEvent) => {
    if (event.persisted) handlers.resume();
  };
  win.addEventListener("pagehide", onHide);
  win.addEventListener("pageshow", onShow);
  doc?.addEventListener("freeze", onHide);
  doc?.addEventListener("resume", handlers.resume);
  return () => {
    win.removeEventListener("pagehide", onHide);
    win.removeEventListener("pageshow", onShow);
    doc?.removeEventListener("freeze", onHide);
    doc?.removeEventListener("resume", handlers.resume);
  };
}

/** A browser page, whose unload can cut its requests short (jsdom and happy-dom pages never unload). */
const inUnloadablePage =
  typeof (globalThis as { document?: unknown }).document !== "undefined" &&
  typeof (globalThis as { window?: unknown }).window !== "undefined" &&
  typeof MessageChannel === "function" &&
  !/\bjsdom\/|HappyDOM/.test((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? "");

/**
 * Runs `fn` in a task of its own in a browser page, at once elsewhere. A navigation fails the
 * page's requests as network errors ("Failed to fetch") in the task that fires pagehide, and their
 * rejections run at its first microtask checkpoint: after the first pagehide listener, which need
 * not be ours (the app's, a connector's, an analytics script's). A failure judged a task later
 * meets an attempt that pagehide has stopped, its claim marked abandoned for others to take over,
 * instead of recording the page's own unload as the request's error for every tab. A message, not
 * a timer: a hidden tab's timers are throttled to a second or more.
 */
export function inNextPageTask(fn: () => void): void {
  if (!inUnloadablePage) return fn();
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = () => {
    port1.close();
    fn();
  };
  port2.postMessage(null);
}
