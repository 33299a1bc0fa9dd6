/**
 * README, "Public surface": what a store and the non-main entries carry. The section names the
 * store's methods, the development simulations `shared-fetch/internals` gives, and what the two
 * devtools entries export (`test/readme-public-surface.test.ts` checks the entries' names; this
 * checks that what the prose promises is there and callable), and that the exported defaults are
 * the ones a store given no option of its own uses.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import {
  createSharedFetchStore,
  DEFAULT_LEASE_MS,
  DEFAULT_PROGRAM_LEASE_MS,
  DEFAULT_SETTLE_MS,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import * as devtools from "../../devtools/index.ts";
import * as production from "../../devtools/production.ts";
import { Host } from "../../sim/host.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

const stores: { destroy(): void }[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.destroy()));

const make = (): SharedFetchStoreWithExtras => {
  const store = createSharedFetchStore({ doc: new Y.Doc(), fetch: new Host().fetch, locks: null });
  stores.push(store);
  return store;
};

describe("README, Public surface: a store", () => {
  it("has every method the section names (ensure, snapshot, subscribe, refetch, the program methods, destroy, keyOf, onEvent, inspect, onInspect, claims, malformed)", () => {
    const store = make() as unknown as Record<string, unknown>;
    const named = [
      "ensure",
      "snapshot",
      "subscribe",
      "refetch",
      "destroy",
      "keyOf",
      "onEvent",
      "inspect",
      "onInspect",
      "claims",
      "malformed",
    ];
    const program = ["ensureProgram", "refetchProgram", "programSnapshot", "subscribeProgram"];
    expect([...named, ...program].filter((name) => typeof store[name] !== "function")).toEqual([]);
  });

  it("inspect() carries settle (ms, eager, why) and lifecycle, with the values the section lists", () => {
    const inspection = make().inspect();
    expect(inspection.settle).toBeDefined();
    const settle = inspection.settle!;
    expect(typeof settle.ms).toBe("number");
    expect(typeof settle.eager).toBe("boolean");
    expect(["nothing-syncs", "tab-locks", "settle-ms", "default", "initial-sync", "measured-trip", "disconnected", "alone"]).toContain(
      settle.why,
    );
    expect(["starting", "ready"]).toContain(inspection.lifecycle);
  });

  it("shared-fetch/internals gives the development simulations dev.crash(), dev.pauseNetwork(true) and dev.stopHeartbeats(true)", () => {
    const { dev } = internalsOf(make());
    expect([typeof dev.crash, typeof dev.pauseNetwork, typeof dev.stopHeartbeats]).toEqual(["function", "function", "function"]);
    expect(() => internalsOf({})).toThrow(/not a store made by createSharedFetchStore/);
  });
});

describe("README, Public surface: the devtools entries", () => {
  it("shared-fetch/devtools exports the panel, its React-free model and the timeline; shared-fetch/devtools/production the same names", () => {
    for (const name of ["SharedFetchDevtools", "SharedFetchDevtoolsPanel", "createDevtoolsModel", "Timeline"])
      expect(typeof (devtools as Record<string, unknown>)[name], name).toBe("function");
    expect(Object.keys(production).sort()).toEqual(Object.keys(devtools).sort());
  });
});

describe("README, Public surface: the defaults are what a store given none uses", () => {
  afterEach(() => vi.useRealTimers());

  it("DEFAULT_LEASE_MS is 5000, DEFAULT_PROGRAM_LEASE_MS 10000, DEFAULT_SETTLE_MS 100 (DESIGN: the lease bounds)", () => {
    expect([DEFAULT_LEASE_MS, DEFAULT_PROGRAM_LEASE_MS, DEFAULT_SETTLE_MS]).toEqual([5000, 10_000, 100]);
  });

  it("a store given no leaseMs claims a fetch with DEFAULT_LEASE_MS and a program with DEFAULT_PROGRAM_LEASE_MS", async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    background(a!.ensure({ url: URL_A }));
    background(a!.ensureProgram({ url: `${URL_A}/main.ts` }));
    await tick(10);
    const leases = Object.fromEntries(b!.inspect().keys.map((k) => [k.kind, k.claim?.leaseMs]));
    expect(leases).toEqual({ fetch: DEFAULT_LEASE_MS, program: DEFAULT_PROGRAM_LEASE_MS });
  });

  it("invariant 3: a crashed claimant's fetch is taken over once DEFAULT_LEASE_MS of its silence has passed, not before", async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    background(a!.ensure({ url: URL_A }));
    await tick(10);
    background(b!.ensure({ url: URL_A }));
    await tick(10);
    c.crash(a!); // no Web Locks here: only the lease tells b
    await tick(DEFAULT_LEASE_MS - 100);
    expect(c.host.calls).toHaveLength(1);
    await tick(200);
    expect(c.host.calls).toHaveLength(2);
  });
});
