/**
 * The simulated host's `whenCalls(n)`, the explicit event the stories and tests wait on: asked
 * before the host had n - 1 calls, it never resolved (the first call to come woke the waiter,
 * found too few calls and dropped it), and a test awaiting the second of two requests hung.
 */
import { describe, expect, it } from "vitest";
import { createSimulatedHost } from "../../stories/support/simulated-host.ts";

const URL = "https://api.example.test/api/report";

describe("the simulated host's whenCalls", () => {
  it("a wait for the second call, made before any call, resolves at the second call", async () => {
    const host = createSimulatedHost({ behavior: "hang" });
    let woke = false;
    const second = host.whenCalls(2).then((calls) => {
      woke = true;
      return calls.map((c) => c.from);
    });
    void host
      .fetchAs("A")(URL)
      .catch(() => undefined);
    await host.whenCalls(1);
    expect(woke).toBe(false);
    void host
      .fetchAs("B")(URL)
      .catch(() => undefined);
    await expect(second).resolves.toEqual(["A", "B"]);
    host.destroy();
  });
});
