import { onTestFinished } from "vitest";
import type { Awareness } from "y-protocols/awareness";
import { linkedAwareness } from "../devtools/awareness.ts";

/** `linkedAwareness` destroyed when the test ends: presence as tabs on one BroadcastChannel share it. */
export function linkedPresence(count: number): { all: Awareness[]; cut(i: number): void } {
  const { all, cut, destroy } = linkedAwareness(count);
  onTestFinished(destroy);
  return { all, cut };
}
