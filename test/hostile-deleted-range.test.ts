/**
 * Invariant 14: a peer's update is not trusted to be small in what it means. Twelve bytes can hold
 * one item already deleted (Yjs's ContentDeleted) of 2^31 clocks; Yjs integrates it as one range
 * of its transaction's delete set. The lanes' index walked such a range clock by clock, looking
 * each id up: about 100 ms per million clocks, so every replica in the room froze for minutes.
 * The index finds the ids it holds inside a long range instead. Real Y.Docs and stores.
 */
import * as encoding from "lib0/encoding";
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { Host } from "../sim/host.ts";
import { createSharedFetchStore } from "../src/index.ts";

/** An update of `client` holding one deleted item of `len` clocks under the root type `x`. */
function deletedRange(client: number, len: number): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, 1); // one client
  encoding.writeVarUint(e, 1); // one struct
  encoding.writeVarUint(e, client);
  encoding.writeVarUint(e, 0); // its first clock
  encoding.writeUint8(e, 1); // an Item of ContentDeleted, no origins: its parent follows
  encoding.writeVarUint(e, 1); // the parent is a root type, by name
  encoding.writeVarString(e, "x");
  encoding.writeVarUint(e, len);
  encoding.writeVarUint(e, 0); // an empty delete set
  return encoding.toUint8Array(e);
}

describe("invariant 14: a deleted range of 2^31 clocks from a peer", () => {
  it("is applied in a moment, and the store goes on fetching and recording", async () => {
    const doc = new Y.Doc();
    const host = new Host();
    host.auto = () => ({ status: 200, body: { ok: 1 } });
    const store = createSharedFetchStore({ doc, fetch: host.fetch, locks: null });
    const req = { url: "https://api.example.test/after-hostile-range" };
    await expect(store.ensure(req)).resolves.toMatchObject({ status: "success" });
    const update = deletedRange(424242, 2 ** 31);
    expect(update.byteLength).toBeLessThan(20);
    Y.applyUpdate(doc, update, "peer");
    expect(doc.store.clients.get(424242)?.[0]?.length).toBe(2 ** 31);
    await expect(store.refetch(req)).resolves.toMatchObject({ status: "success", data: { ok: 1 } });
    expect(host.calls).toHaveLength(2);
    store.destroy();
  }, 10_000);
});
