/**
 * Web Locks may refuse a key's lock: an opaque origin or a sandboxed iframe throws SecurityError
 * on every request, a LockManager given through options may be broken. A claim that asked for its
 * key's lock and was refused claims as a store without key locks does (the timed settle window),
 * so the key is pending while a request is sent and then shows its answer (invariant 8: pending is
 * truthful, never pending with nobody working). Before, the refusal was swallowed: the claim
 * stayed "locking" for good and no request was ever sent. The console says why once; each later
 * claim of that store falls back the same way.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../sim/fake-locks.ts";
import type { LockManagerLike } from "../src/core/locks.ts";
import { background, cluster, tick, until, URL_A } from "./harness/replicas.ts";

beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] }));
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const refused = () => new DOMException("The request was denied.", "SecurityError");

/** A tab's lock manager that refuses what `refuse` names. */
function refusing(locks: FakeLocks, tag: string, refuse: (name: string) => boolean): LockManagerLike {
  const real = locks.forTab(tag);
  return {
    query: () => (refuse("query") ? Promise.reject(refused()) : real.query()),
    request: (name, options, callback) => (refuse(name) ? Promise.reject(refused()) : real.request(name, options, callback)),
  };
}

const cases: [string, (name: string) => boolean][] = [
  ["every request refused (an opaque origin)", () => true],
  ["only key locks refused (a broken LockManager)", (name) => name.startsWith("shared-fetch:key:")],
];

it.each(cases)("invariant 8, %s: the claim falls back to the settle window and its request is sent", async (_, refuse) => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const c = cluster(0);
  const a = c.join({ locks: refusing(new FakeLocks(), "a", refuse), browserId: "browser-1" });
  await tick(10);
  const first = background(a.ensure({ url: URL_A }));
  await tick(1);
  // Truthful: a claim stands and will be worked on, not a claim stuck before its write.
  expect(a.snapshot({ url: URL_A })).toMatchObject({ status: "pending", claim: { replicaId: a.replicaId, mine: true } });
  await tick(30);
  expect(c.host.calls).toHaveLength(1);
  c.host.calls[0]!.respond(200, "one");
  await expect(until(first)).resolves.toMatchObject({ status: "success", data: "one" });
  // A later claim of this store, refused again, falls back the same way; the console said so once.
  const second = background(a.ensure({ url: `${URL_A}/2` }));
  await tick(30);
  expect(c.host.calls).toHaveLength(2);
  c.host.calls[1]!.respond(200, "two");
  await expect(until(second)).resolves.toMatchObject({ status: "success", data: "two" });
  const said = warn.mock.calls.filter(([m]) => /shared-fetch: locks refused/.test(String(m)));
  expect(said).toHaveLength(1);
  expect(String(said[0])).toMatch(/SecurityError/);
});

it("invariant 8: two tabs of one browser, one refused its key locks, still send one request for the key", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const locks = new FakeLocks();
  const c = cluster(0);
  const a = c.join({ locks: refusing(locks, "a", (name) => name.startsWith("shared-fetch:key:")), browserId: "browser-1" });
  const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1" });
  await tick(10);
  const fromA = background(a.ensure({ url: URL_A }));
  const fromB = background(b.ensure({ url: URL_A }));
  await tick(60);
  expect(c.host.calls).toHaveLength(1);
  c.host.calls[0]!.respond(200, "shared");
  await expect(until(fromA)).resolves.toMatchObject({ data: "shared" });
  await expect(until(fromB)).resolves.toMatchObject({ data: "shared" });
});
