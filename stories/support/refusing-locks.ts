/**
 * Web Locks that refuse every request, as a browser's do in an opaque origin or a sandboxed iframe
 * (a `SecurityError`), and the store's console warning about it, heard so that a scenario can tell
 * it. The warning is the only place a store says its locks were refused (the devtools panel shows
 * only the settle window its claims then wait).
 */
import type { LockManagerLike } from "../../src/core/locks.ts";

/** The store's words on its first refusal (core/locks.ts), with the refusal beside them. */
export const REFUSED_WARNING = "shared-fetch: locks refused";

export type RefusingTabs = {
  /** `tab`'s lock manager: every request and query is refused. */
  locksFor(tab: string): LockManagerLike;
  /** Calls `listener` when a store warns of a refusal these managers gave, naming the tab it was given to. */
  onWarned(listener: (tab: string, error: Error) => void): () => void;
};

const warned = new Set<(args: unknown[]) => void>();
let wrapped = false;

/** The console's warn, heard by every world on the page (once wrapped, its own warn still runs). */
function onConsoleWarn(listener: (args: unknown[]) => void): () => void {
  if (!wrapped) {
    wrapped = true;
    const warn = console.warn.bind(console);
    console.warn = (...args: unknown[]) => {
      for (const l of [...warned]) l(args);
      warn(...args);
    };
  }
  warned.add(listener);
  return () => void warned.delete(listener);
}

export function refusingTabs(): RefusingTabs {
  // Each refusal by the tab it was given to: another world's warnings quote refusals not in here.
  const refusedTo = new WeakMap<object, string>();
  return {
    locksFor(tab) {
      const refuse = () => {
        const error = new DOMException("The request was denied.", "SecurityError");
        refusedTo.set(error, tab);
        return Promise.reject(error);
      };
      return { request: refuse, query: refuse };
    },
    onWarned: (listener) =>
      onConsoleWarn(([message, error]) => {
        const tab = message === REFUSED_WARNING && error instanceof Error ? refusedTo.get(error) : undefined;
        if (tab !== undefined) listener(tab, error as Error);
      }),
  };
}
