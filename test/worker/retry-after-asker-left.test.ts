/**
 * Retries in worker mode when the tab whose policy the request runs with has left: a retry
 * policy that is a function lives in its tab, and once that tab's ask is withdrawn (its query
 * unmounted, its store destroyed, the tab closed) the worker asks another tab still waiting for
 * the key, with that tab's own policy, as its own replica would have taken the request over with
 * it in tab mode. Nobody left with a policy: no retry (test/worker/retry.test.ts). Real ports,
 * docs and stores; FakeLocks.
 */
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import type { OutcomeError } from "../../src/core/fetcher.ts";
import type { RetryPolicy } from "../../src/core/retry.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/asker-left";

/** TanStack's `retry: (count, error) => error.status >= 500 && count < 3` with `retryDelay: 0`: a function policy. */
function serverErrors(seen: number[]): RetryPolicy {
  return {
    retry: (count: number, error: OutcomeError) => (seen.push(count), (error.status ?? 0) >= 500 && count < 3),
    delayMs: () => 0,
  };
}

it("the asker withdraws while its request runs; the other tab waiting for it retries a 503 with its own function policy (one sequence of attempts, no error shown)", async () => {
  const host = new Host();
  const b = browser(host);
  const [asker, other] = [b.tab(), b.tab()];
  const askerSeen: number[] = [];
  const otherSeen: number[] = [];
  const leave = new AbortController();
  const asked = asker.ensure({ url: API }, { retry: serverErrors(askerSeen), signal: leave.signal });
  const [first] = await host.whenCalls(1);
  const joined = other.ensure({ url: API }, { retry: serverErrors(otherSeen) });
  const key = other.keyOf({ url: API });
  const waiters = () =>
    b
      .workerStore()
      .inspect()
      .keys.find((k) => k.key === key)?.local?.waiters;
  await until(() => waiters() === 2);
  // The asker's pane unmounts (or its tab closes): the request goes on for the other tab.
  leave.abort();
  await expect(asked).rejects.toMatchObject({ name: "AbortError" });
  await until(() => waiters() === 1);
  host.auto = () => ({ status: 200, body: { ok: true } });
  first!.respond(503, { down: true });
  await expect(joined).resolves.toMatchObject({ status: "success", data: { ok: true } });
  expect(host.calls).toHaveLength(2);
  expect(otherSeen).toEqual([0]);
  expect(askerSeen).toEqual([]);
});
