/**
 * A store's joins are followed for its whole life (joined-keys.ts): the keys its asks wait on
 * another replica's claim of, so that a feed shows that claim's failures. A key left the set only
 * when this replica claimed or swept it; one that another replica swept (every replica sweeps, the
 * first one's timer wins) or that was simply never asked again stayed for as long as the page
 * lived: a page open for days on a feed whose pages are new keys (cursors, times) grew the set by
 * each one, where the engine keeps about IDLE_STATES idle key states however many keys it met, and
 * tells a join again to a key whose state it dropped. The store's event stream is told here
 * explicitly: a join is one event, and a sweep by another replica is none.
 */
import { expect, it } from "vitest";
import type { StoreEvent } from "../../src/core/events.ts";
import { IDLE_STATES } from "../../src/core/job.ts";
import { followJoins, joinedKey } from "../../src/react/joined-keys.ts";

/** What followJoins reads of a store: its events, told by `tell`. */
function eventSource() {
  const listeners: ((e: StoreEvent) => void)[] = [];
  const store = { onEvent: (listener: (e: StoreEvent) => void) => (listeners.push(listener), () => {}) };
  followJoins(store);
  return { store, tell: (e: StoreEvent) => listeners.forEach((l) => l(e)) };
}

const joined = (key: string, rev = 1): StoreEvent => ({ type: "joined", kind: "fetch", key, rev, to: "replica-a" });

it("keys joined long ago and swept by another replica leave the set: it stays bounded however many keys a page meets", () => {
  const { store, tell } = eventSource();
  tell(joined("page-0"));
  // Each page of a feed a new key, joined once, then swept elsewhere: no event tells this store.
  for (let i = 1; i <= 10 * IDLE_STATES; i++) tell(joined(`page-${i}`));
  expect(joinedKey(store, "page-0")).toBe(false); // true without the bound: kept for the page's life
  expect(joinedKey(store, `page-${10 * IDLE_STATES}`)).toBe(true);
  expect(joinedKey(store, `page-${9 * IDLE_STATES}`)).toBe(true);
});

it("a key told again (a new claim joined) stays among the recent ones, and a claim of ours still takes it out", () => {
  const { store, tell } = eventSource();
  tell(joined("watched"));
  for (let i = 1; i <= 10 * IDLE_STATES; i++) {
    tell(joined(`page-${i}`));
    if (i % IDLE_STATES === 0) tell(joined("watched", i));
  }
  expect(joinedKey(store, "watched")).toBe(true);
  tell({ type: "claimed", kind: "fetch", key: "watched", label: "GET /watched", rev: 99, settleMs: 0, settleWhy: "alone" });
  expect(joinedKey(store, "watched")).toBe(false);
});
