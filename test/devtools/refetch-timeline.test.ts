/**
 * TanStack's cancelRefetch as the panel tells it: a skipInFlight refetch on the replica holding the
 * request aborts that request and claims a newer revision over its claim (never through "no
 * claim", invariant 4), so no release is seen; the Timeline still says the request was aborted,
 * and why (the store's own "aborted" event), between the two claims.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry, Timeline } from "../../devtools/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const R = { url: URL_A };

describe("a refetch that replaces the request in flight, in the Timeline", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("tells the abort of the replaced request and the newer one sent for the refetch", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const model = createDevtoolsModel(a!, { minNotifyIntervalMs: 0 });
    background(a!.ensure(R));
    await tick(10);
    const refetched = background(a!.refetch(R, { skipInFlight: true }));
    await tick(10);
    c.host.calls[1]!.respond(200, { n: 2 });
    await until(refetched);
    await tick(10);
    const told = model
      .getSnapshot()
      .timeline.map((e) => describeEntry(e, () => "A"))
      .reverse();
    expect(told).toEqual([
      "A claimed GET https://api.example.test/items (rev 1)",
      "A aborted its request for GET https://api.example.test/items (rev 1): a refetch sent a newer one (rev 2)",
      "A claimed GET https://api.example.test/items (rev 2)",
      expect.stringMatching(/^A wrote the result of GET https:\/\/api.example.test\/items \(rev 2/),
    ]);
    model.destroy();
  });

  it("tells the abort when the newer claim came and went between two inspections (told by the abort's reason and the revision jump)", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    // The model's own wiring, with inspections only where this test takes them: the refetch's
    // claim is written and its result recorded between the two.
    const timeline = new Timeline();
    const off = a!.onEvent((e) => e.type === "aborted" && timeline.aborts.set(e.key, [e.rev, e.reason]));
    background(a!.ensure(R));
    await tick(10);
    timeline.observe(a!.inspect());
    const refetched = background(a!.refetch(R, { skipInFlight: true }));
    await tick(10);
    c.host.calls[1]!.respond(200, { n: 2 });
    await until(refetched);
    await tick(10);
    timeline.observe(a!.inspect());
    const told = timeline
      .entries()
      .map((e) => describeEntry(e, () => "A"))
      .reverse();
    expect(told).toEqual([
      "A held GET https://api.example.test/items (rev 1) when this panel started",
      "A aborted its request for GET https://api.example.test/items (rev 1): a refetch sent a newer one (rev 2)",
      expect.stringMatching(/^A wrote the result of GET https:\/\/api.example.test\/items \(rev 2/),
    ]);
    off();
  });
});
