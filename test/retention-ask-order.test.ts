/**
 * Growth bound meets time to data: the ask record (read only by a sweep a day later) is never
 * written ahead of the key's claim. A booting store writes nothing before its sync; its first
 * transaction carries the claim and the ask together (one update, one broadcast, one IndexedDB
 * put), and a replica waiting for another's claim leaves the ask to the claimant.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { registerConnector } from "../src/core/connectors.ts";
import { createSharedFetchStore } from "../src/index.ts";
import { internalsOf } from "../src/core/internals.ts";

const answer = (async () => new Response('"x"')) as typeof fetch;

/** After every transaction on the store's doc: which tables changed, and keys asked for but neither claimed nor recorded. */
function watchTransactions(store: object) {
  const { records } = internalsOf(store);
  const tables = { claims: records.claims, results: records.results, errors: records.errors, asks: records.asks };
  const seen: { tables: string[]; askedUnclaimed: string[]; local: boolean }[] = [];
  let changed = new Set<string>();
  for (const [name, map] of Object.entries(tables)) map.onChange(() => changed.add(name));
  records.doc.on("afterTransaction", (tr: Y.Transaction) => {
    if (changed.size === 0) return;
    const known = (key: string) => [records.claims, records.results, records.errors].some((map) => map.get(key) !== undefined);
    seen.push({ tables: [...changed].sort(), askedUnclaimed: records.asks.keys().filter((key) => !known(key)), local: tr.local });
    changed = new Set();
  });
  return seen;
}

describe("retention: the ask record follows the claim", () => {
  it("a booting store writes nothing before its sync, then its claim and ask in one transaction", async () => {
    const doc = new Y.Doc();
    let synced!: () => void;
    const whenSynced = new Promise<void>((resolve) => (synced = resolve));
    registerConnector(doc, { whenSynced, crossDevice: false });
    const store = createSharedFetchStore({ doc, fetch: answer, locks: null });
    const seen = watchTransactions(store);

    const done = store.ensure({ url: "https://api.example.test/boot" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toEqual([]); // not in sync: no ask, no claim
    synced();
    await expect(done).resolves.toMatchObject({ status: "success", data: "x" });
    expect(seen[0]!.tables).toEqual(expect.arrayContaining(["asks", "claims"]));
    expect(seen.every((t) => t.askedUnclaimed.length === 0)).toBe(true);
    store.destroy();
  });

  it("a follower writes no ask of its own when the claimant's ask arrives with its claim; no ask is ever unclaimed", async () => {
    const docA = new Y.Doc();
    const docB = new Y.Doc();
    let synced!: () => void;
    registerConnector(docA, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
    const a = createSharedFetchStore({ doc: docA, fetch: answer, locks: null });
    const b = createSharedFetchStore({ doc: docB, fetch: answer, locks: null });
    const seen = watchTransactions(a);
    const req = { url: "https://api.example.test/follow" };

    const waiting = a.ensure(req); // a boots: its ask is due, nothing written
    const held = b.ensure(req); // b claims (its ask rides along) and fetches
    docB.on("update", (u: Uint8Array, origin: unknown) => origin !== "net" && Y.applyUpdate(docA, u, "net"));
    docA.on("update", (u: Uint8Array, origin: unknown) => origin !== "net" && Y.applyUpdate(docB, u, "net"));
    Y.applyUpdate(docA, Y.encodeStateAsUpdate(docB), "net");
    synced();
    await expect(waiting).resolves.toMatchObject({ status: "success", data: "x" });
    await held;
    await Promise.resolve();
    expect(seen.every((t) => t.askedUnclaimed.length === 0)).toBe(true);
    expect(seen.filter((t) => t.local && t.tables.includes("asks"))).toEqual([]); // a wrote none
    expect(internalsOf(a).records.asks.keys()).toHaveLength(1); // b's
    a.destroy();
    b.destroy();
  });
});
