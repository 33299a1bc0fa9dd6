type PageListener = (event: PageTransitionEvent) => void;

/**
 * pagehide and pageshow on the page, where there is one: returns the unsubscribe. A hide may be
 * for good (`persisted: false`) or into the back/forward cache, from which a show comes back.
 */
export function onPageTransitions(hide: PageListener, show: PageListener): () => void {
  const win = globalThis as {
    addEventListener?: (t: string, f: PageListener) => void;
    removeEventListener?: (t: string, f: PageListener) => void;
  };
  if (typeof win.addEventListener !== "function") return () => {};
  win.addEventListener("pagehide", hide);
  win.addEventListener("pageshow", show);
  return () => {
    win.removeEventListener?.("pagehide", hide);
    win.removeEventListener?.("pageshow", show);
  };
}
