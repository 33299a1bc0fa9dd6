/**
 * A takeover whose first attempt fails before the tab's hello reaches the promoted standby: the
 * standby took the dead worker's claim over at once, with the tab's ask it held in advance, and a
 * retry policy that is a function lives in the tab. Its question was posted while the standby
 * spoke to nobody (it reached no tab), and the hello that came next answered it "no retry": a 503
 * blip at the takeover became the error the tab showed, where its own replica retries. Now the
 * hello asks the questions of the asks it keeps again, however late it comes: RETRY_ASK_MS, the
 * bound on a tab's answer, runs from when a tab heard the question (it ran from the standby's
 * unheard question, so a tab busy for longer got "no retry"). Real ports, docs and stores; FakeLocks.
 */
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import type { OutcomeError } from "../../src/core/fetcher.ts";
import type { RetryPolicy } from "../../src/core/retry.ts";
import { RETRY_ASK_MS } from "../../src/worker/retry-wire.ts";
import { browser, tabBusyAtTakeover } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/takeover-retry-before-hello";

/** TanStack's `retry: (count, error) => error.status >= 500 && count < 3` with `retryDelay: 0`. */
function serverErrors(seen: number[]): RetryPolicy {
  return {
    retry: (count: number, error: OutcomeError) => (seen.push(count), (error.status ?? 0) >= 500 && count < 3),
    delayMs: () => 0,
  };
}

/** The takeover's first attempt gets a 503, and the tab's hello reaches the standby `helloAfterMs` later. */
async function blipAtTakeover(helloAfterMs: number): Promise<void> {
  const host = new Host();
  const b = browser(host);
  let failed!: () => void;
  const blip = new Promise<void>((resolve) => (failed = resolve));
  // This tab starts the standby (the first tab's page hosts the live worker); its hello to it waits for the blip.
  const { tab, whenHeld } = tabBusyAtTakeover(b, blip);
  const seen: number[] = [];
  const asked = tab.ensure({ url: API }, { retry: serverErrors(seen) });
  await host.whenCalls(1);
  // The standby holds the tab's ask in advance.
  await whenHeld(tab.keyOf({ url: API }));

  let n = 0;
  host.auto = () => {
    if (++n > 1) return { status: 200, body: { ok: true } };
    setTimeout(failed, helloAfterMs);
    return { status: 503, body: { down: true } };
  };
  b.kill(0);
  await expect(asked).resolves.toMatchObject({ status: "success", data: { ok: true } });
  expect(seen).toEqual([0]);
  expect(host.calls.map((c) => c.status)).toEqual([undefined, 503, 200]);
}

it("the takeover's first attempt fails before the tab's hello: the tab's function policy is asked and the retry succeeds (no error shown, one sequence of attempts)", () =>
  blipAtTakeover(50));

it(
  "a tab busy longer than RETRY_ASK_MS before its hello: the question the standby could ask nobody is still asked at the hello, and the retry succeeds",
  () => blipAtTakeover(RETRY_ASK_MS + 1_000),
  15_000,
);
