import { uuidv4 } from "lib0/random";

const storageKey = "shared-fetch:browser-id";
let cached: string | undefined;

/**
 * A random id shared by every tab of this origin in this browser profile (localStorage), so a
 * replica can tell "claimed from my own browser" (where Web Locks can prove death). Without
 * localStorage it is per module instance: it never claims more sameness than it can prove.
 */
export function getBrowserId(): string {
  cached ??= readOrCreate();
  return cached;
}

function readOrCreate(): string {
  try {
    // Even reading `localStorage` throws in sandboxed iframes and with storage disabled.
    if (typeof localStorage !== "undefined" && localStorage !== null) {
      const existing = localStorage.getItem(storageKey);
      if (existing) return existing;
      const id = uuidv4();
      localStorage.setItem(storageKey, id);
      return id;
    }
  } catch {
    // fall through to an id of our own
  }
  return uuidv4();
}
