/**
 * The panel's actions on a replica that can write nothing more say so, instead of reporting a
 * success the doc never saw: a crashed replica (the development simulation) writes nothing, and a
 * destroyed store wrote its last (destroy: an orderly stop writes nothing afterwards).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { evictRecord, refetchKey, releaseClaim, simulateCrash } from "../../devtools/actions.ts";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { internalsOf } from "../../src/internals.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

describe("a crashed replica's actions are refused, and nothing changes", () => {
  it("evict: the result stays for every replica", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(b!.ensure(req));
    await tick(1);
    simulateCrash(a!);
    expect(evictRecord(a!, a!.keyOf(req))).toEqual({ ok: false, message: "This replica crashed (simulation): it writes nothing more." });
    await tick(1);
    expect(b!.resultInfo(req)?.rev).toBe(1);
  });

  it("release my claim: its claim stays, for others to take over as a crashed tab's", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(1);
    const key = a!.keyOf(req);
    simulateCrash(a!);
    expect(releaseClaim(a!, key).ok).toBe(false);
    await tick(1);
    expect(internalsOf(b!).records.claims.get(key)?.replicaId).toBe(a!.replicaId);
  });
});

it("a destroyed store's actions are refused and write nothing into the doc", async () => {
  const c = cluster(2, { settleMs: 0 });
  const [a, b] = c.stores;
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  await until(b!.ensure(req));
  await tick(1);
  const key = a!.keyOf(req);
  a!.destroy();
  const updates: Uint8Array[] = [];
  c.docOf(a!).on("update", (u: Uint8Array) => updates.push(u));
  const refused = { ok: false, message: "This store was destroyed: it writes nothing more." };
  expect([invalidateKey(a!, key), evictRecord(a!, key), refetchKey(a!, key), releaseClaim(a!, key)]).toEqual([
    refused,
    refused,
    refused,
    refused,
  ]);
  await tick(10);
  expect(updates).toHaveLength(0);
  expect(b!.resultInfo(req)?.rev).toBe(1);
  expect(c.host.calls).toHaveLength(1);
});

it("refetch of a key this replica asked for and let go says so, and sends nothing", async () => {
  const c = cluster(2, { settleMs: 0 });
  const [a] = c.stores;
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  const stop = a!.subscribe(req, () => {});
  await until(a!.ensure(req));
  stop();
  await tick(1);
  expect(refetchKey(a!, a!.keyOf(req))).toEqual({
    ok: false,
    message:
      "This replica holds no request for this key (it never asked for it, or let it go): only a replica that has it in use knows its request (headers and bodies are never stored).",
  });
  await tick(10);
  expect(c.host.calls).toHaveLength(1);
});
