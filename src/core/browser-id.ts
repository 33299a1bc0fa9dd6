import type { LockManagerLike } from "./locks.ts";
import { randomId } from "./job.ts";

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
      const id = randomId();
      localStorage.setItem(storageKey, id);
      return id;
    }
  } catch {
    // fall through to an id of our own
  }
  return randomId();
}

const agreedKey = "shared-fetch:browser-id:agreed";

/**
 * Tabs opened at once on a first visit may each have stored an id of their own before they saw
 * each other's. Under one Web Lock the first tab records the id that counts; every later tab
 * adopts it, so all tabs of a browser name one browser and a crash is found by the lock, not the
 * lease. Without localStorage the tentative id stands (nothing can be shared anyway).
 */
export function agreeBrowserId(locks: LockManagerLike, tentative: string): Promise<string> {
  // A returning visit: the id that counts was recorded long ago and never changes, so no lock
  // round trip stands between a tab's boot and its first claim.
  const known = storedAgreedId();
  if (known !== undefined) {
    cached = known;
    return Promise.resolve(known);
  }
  return locks
    .request("shared-fetch:browser-id", { mode: "exclusive" }, () => {
      try {
        if (typeof localStorage === "undefined" || localStorage === null) return tentative;
        const agreed = localStorage.getItem(agreedKey);
        if (agreed) return agreed;
        localStorage.setItem(agreedKey, tentative);
        localStorage.setItem(storageKey, tentative);
        return tentative;
      } catch {
        return tentative;
      }
    })
    .then(
      (id) => {
        const agreed = typeof id === "string" && id ? id : tentative;
        cached = agreed;
        return agreed;
      },
      () => tentative,
    );
}

function storedAgreedId(): string | undefined {
  try {
    if (typeof localStorage === "undefined" || localStorage === null) return undefined;
    return localStorage.getItem(agreedKey) || undefined;
  } catch {
    return undefined;
  }
}
