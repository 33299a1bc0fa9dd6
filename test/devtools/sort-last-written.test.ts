/**
 * The Keys tab's "last written" sort, as TanStack's devtools sort by last updated: a key whose
 * refetch just failed (an error recorded beside its older result, invariant 7) was last written
 * then. It sorted by its result's time alone, below keys written before the failure.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, queryKeys } from "../../devtools/index.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const older = { url: `${URL_A}/older` };
const newer = { url: `${URL_A}/newer` };

describe("devtools keys sorted by last written", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("an error written beside an older result counts: the key that just failed is on top", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    c.host.auto = () => ({ status: 200, body: "ok" });
    await until(a!.ensure(older));
    await tick(1000);
    await until(a!.ensure(newer));
    await tick(1000);
    c.host.auto = () => ({ status: 503, body: "busy" });
    await until(a!.refetch(older));
    await tick();
    const rows = queryKeys(model.getSnapshot().keys, { status: "all", search: "", sort: "written" });
    expect(rows.map((r) => [r.label, r.status])).toEqual([
      [`GET ${older.url}`, "error"],
      [`GET ${newer.url}`, "success"],
    ]);
    // The result kept beside the error is the older one, as written then.
    expect(rows[0]!.result!.at! < rows[1]!.result!.at!).toBe(true);
    expect(rows[0]!.error!.at! > rows[1]!.result!.at!).toBe(true);
    model.destroy();
  });
});
