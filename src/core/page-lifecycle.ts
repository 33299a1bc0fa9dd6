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
