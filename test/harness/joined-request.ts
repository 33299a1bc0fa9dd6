import { expect } from "vitest";
import type { Host } from "../../sim/host.ts";

/**
 * Invariant 11's check once the claimant's own ask has ended while another replica waits: after
 * `graceMs` (real time, past the tabs' flush) the one request is still going, and its answer
 * reaches the waiter with nothing sent again.
 */
export async function expectJoinedRequestGoesOn(host: Host, waiting: Promise<unknown>, graceMs: number): Promise<void> {
  await new Promise((r) => setTimeout(r, graceMs));
  expect(host.calls.map((c) => c.aborted)).toEqual([false]);
  host.calls[0]!.respond(200, { by: "a" });
  await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "a" } });
  expect(host.calls).toHaveLength(1);
}
