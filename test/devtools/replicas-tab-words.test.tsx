// @vitest-environment jsdom
/**
 * The Replicas tab's words, read as a user reads them: a replica holding one claim read "1 keys"
 * (its count beside the "keys" button that filters the Keys tab), and its heartbeat read "#3 ·
 * 1.0 s ago", a number nobody could name. The count is now of heartbeats, under "Heartbeats":
 * "3, last 1.0 s ago"; and one claim reads "1 key".
 */
import { act, cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { background, cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

const advance = (ms: number) => act(async () => vi.advanceTimersByTimeAsync(ms));
const claimsOf = (replicaId: string) => screen.getByRole("button", { name: `Keys of ${replicaId}` }).closest("td")!.textContent;
const heartbeatOf = (replicaId: string) => {
  const row = screen.getAllByTestId("replica-row").find((r) => r.dataset.replicaId === replicaId)!;
  return within(row).getByTestId("heartbeat").textContent;
};

it("a replica with one claim reads '1 key', with two '2 keys'; its heartbeats read as a count and the last one's age", async () => {
  // Heartbeats every 20 s (a third of the lease) while A's requests are in flight (the host holds them).
  const c = cluster(2, { leaseMs: 60_000 });
  const [a, b] = c.stores;
  background(a!.ensure({ url: URL_A }));
  await advance(45_000);
  render(<SharedFetchDevtoolsPanel store={b!} initialTab="replicas" />);
  await advance(1_000);
  expect(screen.getByRole("columnheader", { name: "Heartbeats" })).toBeTruthy();
  expect(claimsOf(a!.replicaId)).toBe("1 key");
  expect(heartbeatOf(a!.replicaId)).toMatch(/^2, last \d+\.\d s ago$/);
  // B holds nothing and has written no heartbeat.
  expect(claimsOf(b!.replicaId)).toBe("0 keys");
  expect(heartbeatOf(b!.replicaId)).toBe("—");

  background(a!.ensure({ url: `${URL_A}/2` }));
  await advance(1_000);
  expect(claimsOf(a!.replicaId)).toBe("2 keys");
});
