/**
 * The host summary the Real tabs story ends with: B sent the one request, crashed (its iframe
 * removed mid-request), and the host answered it all the same, to nobody; A took over and was
 * answered. The summary read "1 by A, 1 by B", as if B's request had answered anyone; the call B
 * had in flight when it crashed is "lost with B" whatever the host did with it after.
 */
import { describe, expect, it } from "vitest";
import { hostSummary, inFlightFrom } from "../../stories/support/narration.ts";
import { createSimulatedHost } from "../../stories/support/simulated-host.ts";

const URL = "https://api.example.test/api/report";

describe("the stories' host summary", () => {
  it("a request its sender had in flight when it crashed is lost with it, even once the host answered it", async () => {
    const host = createSimulatedHost({ behavior: "hang" });
    const fromB = host
      .fetchAs("B")(URL)
      .catch(() => undefined);
    await host.whenCalls(1);
    const lost = new Set(inFlightFrom(host.calls, "B"));
    host.calls[0]!.respond(200, { n: 1 });
    await fromB;
    const fromA = host.fetchAs("A")(URL);
    await host.whenCalls(2);
    host.calls[1]!.respond(200, { n: 2 });
    await fromA;
    expect(hostSummary(host.calls, new Set(["B"]), lost)).toBe("2 host requests: 1 lost with B, 1 by A");
    host.destroy();
  });

  it("a crashed sender's request answered before its crash is still its own, and one still in flight is lost with it", async () => {
    const host = createSimulatedHost({ behavior: "hang" });
    const first = host.fetchAs("B")(URL);
    await host.whenCalls(1);
    host.calls[0]!.respond(200, { n: 1 });
    await first;
    void host
      .fetchAs("B")(URL)
      .catch(() => undefined);
    await host.whenCalls(2);
    const lost = new Set(inFlightFrom(host.calls, "B"));
    expect([...lost]).toEqual([2]);
    expect(hostSummary(host.calls, new Set(["B"]), lost)).toBe("2 host requests: 1 by B, 1 lost with B");
    host.destroy();
  });
});
