import { render, waitFor } from "@testing-library/react";
import type { ReactElement } from "react";
import { expect } from "vitest";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { linkedPresence } from "./linked-presence.ts";
import { app } from "./render-app.tsx";
import { cluster } from "./replicas.ts";

/**
 * Tabs A and B of one browser, with presence: A renders `view` and its request is in flight (the
 * host holds it), then B renders `view` and waits on it (B's wait shows in A's view of presence).
 * `waitsOfB` reads the keys B waits on, as A sees them.
 */
export async function bJoinedA(view: (store: SharedFetchStoreWithExtras, name: "a" | "b") => ReactElement) {
  const locks = new FakeLocks();
  const presence = linkedPresence(2);
  const c = cluster(0, { settleMs: 0 });
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", awareness: presence.all[0] });
  const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1", awareness: presence.all[1] });
  c.host.auto = () => undefined;
  render(app(a, view(a, "a")));
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  render(app(b, view(b, "b")));
  const [seenByA, bId] = [presence.all[0]!, presence.all[1]!.clientID];
  const waitsOfB = () => Object.keys(seenByA.getStates().get(bId)?.sharedFetch?.waits ?? {});
  await waitFor(() => expect(waitsOfB()).toHaveLength(1));
  return { c, a, b, waitsOfB };
}
