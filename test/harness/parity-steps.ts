/**
 * The steps the randomized parity tests draw (test/react/parity-random*.test.tsx): what a user
 * does to a pane (mount, options), to the page (time, focus, network) and through the client's
 * methods, and what the host does (hold, answer, fail).
 */
import { focusManager, onlineManager } from "@tanstack/react-query";
import { act } from "@testing-library/react";
import fc from "fast-check";
import { vi } from "vitest";

export type Op =
  | { t: "mount" }
  | { t: "unmount" }
  | { t: "enabled"; on: boolean }
  | { t: "staleTime"; ms: number }
  | { t: "advance"; ms: number }
  | { t: "focus" }
  | { t: "reconnect" }
  | { t: "invalidate"; how: "all" | "exact" | "predicate"; refetchType: "active" | "inactive" | "all" | "none" }
  | { t: "refetchQueries"; type: "active" | "inactive" | "all" }
  | { t: "refetch" }
  | { t: "setQueryData"; n: number }
  | { t: "option"; name: "refetchOnWindowFocus" | "refetchOnMount" | "refetchOnReconnect"; value: boolean | "always" }
  | { t: "gcTime"; ms: number }
  | { t: "retry"; times: number }
  | { t: "interval"; ms: number | false }
  | { t: "select"; on: boolean }
  | { t: "second"; on: boolean }
  | { t: "offline"; on: boolean }
  | { t: "cancel" }
  | { t: "reset" }
  | { t: "remove" }
  | { t: "hold"; on: boolean }
  | { t: "answer"; ok: boolean };

export const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ t: "mount" as const }),
  fc.constant({ t: "unmount" as const }),
  fc.boolean().map((on) => ({ t: "enabled" as const, on })),
  fc.constantFrom(0, 5_000, Infinity).map((ms) => ({ t: "staleTime" as const, ms })),
  fc.constantFrom(1_000, 6_000, 60_000).map((ms) => ({ t: "advance" as const, ms })),
  fc.constant({ t: "focus" as const }),
  fc.constant({ t: "reconnect" as const }),
  fc.record({
    t: fc.constant("invalidate" as const),
    how: fc.constantFrom("all" as const, "exact" as const, "predicate" as const),
    refetchType: fc.constantFrom("active" as const, "inactive" as const, "all" as const, "none" as const),
  }),
  fc.constantFrom("active" as const, "inactive" as const, "all" as const).map((type) => ({ t: "refetchQueries" as const, type })),
  fc.constant({ t: "refetch" as const }),
  fc.integer({ min: 100, max: 999 }).map((n) => ({ t: "setQueryData" as const, n })),
  fc.record({
    t: fc.constant("option" as const),
    name: fc.constantFrom("refetchOnWindowFocus" as const, "refetchOnMount" as const, "refetchOnReconnect" as const),
    value: fc.constantFrom(true, false, "always" as const),
  }),
  fc.constantFrom(0, 1_000, 300_000).map((ms) => ({ t: "gcTime" as const, ms })),
  fc.constantFrom(0, 1, 2).map((times) => ({ t: "retry" as const, times })),
  fc.constantFrom(false as const, 3_000).map((ms) => ({ t: "interval" as const, ms })),
  fc.boolean().map((on) => ({ t: "select" as const, on })),
  fc.boolean().map((on) => ({ t: "second" as const, on })),
  fc.boolean().map((on) => ({ t: "offline" as const, on })),
  fc.constant({ t: "cancel" as const }),
  fc.constant({ t: "reset" as const }),
  fc.constant({ t: "remove" as const }),
  fc.boolean().map((on) => ({ t: "hold" as const, on })),
  fc.boolean().map((ok) => ({ t: "answer" as const, ok })),
);

/** Does a step on the page, not a pane — time, focus, the network: every pane's, in every tab. False for any other. */
export async function pageStep(o: Op): Promise<boolean> {
  if (o.t === "advance") await act(() => vi.advanceTimersByTimeAsync(o.ms));
  else if (o.t === "offline") act(() => onlineManager.setOnline(!o.on));
  else if (o.t === "focus")
    act(() => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
  else if (o.t === "reconnect")
    act(() => {
      onlineManager.setOnline(false);
      onlineManager.setOnline(true);
    });
  else return false;
  return true;
}

/** What a user sees of a pane, compared step by step. */
export type Seen = { status: string; fetchStatus: string; n: number | undefined; isStale: boolean; error: boolean; updatedAt: number };

type Shown = {
  status: string;
  fetchStatus: string;
  data?: { n: number } | undefined;
  isStale: boolean;
  error: unknown;
  dataUpdatedAt: number;
};

export const seenOf = (q: Shown): Seen => ({
  status: q.status,
  fetchStatus: q.fetchStatus,
  n: q.data?.n,
  isStale: q.isStale,
  error: !!q.error,
  updatedAt: q.dataUpdatedAt,
});

/** The page as the next sequence finds it: focus and the network TanStack's own, online. */
export function restorePage(): void {
  focusManager.setFocused(undefined);
  onlineManager.setOnline(true);
}

/** How many sequences and from which seed: PARITY_RUNS and PARITY_SEED raise and replay them. */
export const parityRuns = () => ({
  runs: Number(process.env.PARITY_RUNS ?? 40),
  seed: process.env.PARITY_SEED === undefined ? 20261207 : Number(process.env.PARITY_SEED),
});
