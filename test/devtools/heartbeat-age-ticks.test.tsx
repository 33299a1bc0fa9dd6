// @vitest-environment jsdom
/**
 * The Replicas tab's heartbeat age of a claimant gone silent (a crash on another device, a frozen
 * laptop): nothing changes in the doc until its lease runs out, so the panel inspects nothing new,
 * and the age stayed at what the last inspection measured ("#2 · 5000 ms ago" 16 s later), while
 * the Keys tab's silence of its claim ran on. The age now runs on the same clock (invariant 3b).
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { simulateCrash } from "../../devtools/actions.ts";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { background, cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

const advance = (ms: number) => act(async () => vi.advanceTimersByTimeAsync(ms));
const ageOf = (replicaId: string) => {
  const row = screen.getAllByTestId("replica-row").find((r) => r.dataset.replicaId === replicaId)!;
  // In seconds, as the Keys tab's silence ("2, last 16.0 s ago"), read back in ms.
  const age = /^\d+, last (\d+\.\d) s ago$/.exec(row.querySelector('[data-testid="heartbeat"]')?.textContent ?? "");
  return age ? Math.round(Number(age[1]) * 1000) : undefined;
};

it("a silent claimant's heartbeat age grows with no doc change, as its claim's silence does", async () => {
  const c = cluster(2, { leaseMs: 60_000 });
  const [a, b] = c.stores;
  background(a!.ensure({ url: URL_A }));
  await advance(45_000);
  c.crash(a!);
  render(<SharedFetchDevtoolsPanel store={b!} initialTab="replicas" />);
  await advance(1_000);
  const first = ageOf(a!.replicaId)!;
  expect(first).toBeGreaterThanOrEqual(1_000);
  await advance(10_000);
  expect(ageOf(a!.replicaId)).toBe(first + 10_000);
});

it("the last view of a crashed replica (simulation) is judged no further: the ages it shows stand still", async () => {
  const c = cluster(2, { leaseMs: 60_000 });
  const [a, b] = c.stores;
  background(a!.ensure({ url: URL_A }));
  await advance(45_000);
  render(<SharedFetchDevtoolsPanel store={b!} initialTab="replicas" />);
  await advance(1_000);
  act(() => simulateCrash(b!));
  await advance(500);
  const shown = ageOf(a!.replicaId);
  expect(shown).toBeDefined();
  await advance(10_000);
  expect(ageOf(a!.replicaId)).toBe(shown);
});
