/**
 * A key's Web Lock arbitrates one key between the tabs of one doc (exact arbitration inside a
 * browser). Two docs of one browser that never sync (two `connectTabs` names: two apps of one
 * origin, a per-team or per-user name) with the same identity and URL must not share it: a request
 * hung in one doc kept the other doc's replica from ever fetching, though it could not see that
 * claim (and a slow one delayed it by the request's length). Real Yjs docs and BroadcastChannel,
 * FakeLocks as the browser's one lock manager, the sim's host.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";

const API = "http://127.0.0.1:9/api/key-lock-scope";
let seq = 0;

/** A tab of the doc `name`: its own lock realm in the browser's one lock manager, its key locks recorded. */
function tab(locks: FakeLocks, name: string, host: Host, asked: string[]) {
  const realm = locks.forTab(`tab-${++seq}`);
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, indexeddb: false });
  const store = createSharedFetchStore({
    doc,
    awareness: conn.awareness,
    fetch: host.fetch,
    settleMs: 0,
    locks: {
      request: (lock, options, callback) => (
        lock.startsWith("shared-fetch:key:") && asked.push(lock),
        realm.request(lock, options, callback)
      ),
    },
  });
  return { store, conn, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

describe("a key's Web Lock is scoped by the doc (connectTabs' name)", () => {
  it("a request hung in doc A does not hold back the same request of doc B in the same browser", async () => {
    const host = new Host();
    const locks = new FakeLocks();
    const asked: string[] = [];
    const name = `scope-${process.pid}-${++seq}`;
    const a = tab(locks, `${name}-a`, host, asked);
    const b = tab(locks, `${name}-b`, host, asked);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    void a.store.ensure({ url: API }).catch(() => {});
    await host.whenCalls(1);
    const fromB = b.store.ensure({ url: API });
    const calls = await host.whenCalls(2);
    calls[1]!.respond(200, { doc: "b" });
    await expect(fromB).resolves.toMatchObject({ status: "success", data: { doc: "b" } });
    expect(new Set(asked).size).toBe(2);
    a.close();
    b.close();
  });

  it("two tabs of one doc still take the same key lock: the second waits for the first's claim, 1 request", async () => {
    const host = new Host();
    const locks = new FakeLocks();
    const asked: string[] = [];
    const name = `scope-${process.pid}-${++seq}`;
    const [a, b] = [tab(locks, name, host, asked), tab(locks, name, host, asked)];
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    const both = [a.store.ensure({ url: API }), b.store.ensure({ url: API })];
    const [call] = await host.whenCalls(1);
    await new Promise((r) => setTimeout(r, 50));
    call!.respond(200, { doc: "one" });
    for (const ask of both) await expect(ask).resolves.toMatchObject({ data: { doc: "one" } });
    expect(host.calls).toHaveLength(1);
    expect(new Set(asked).size).toBe(1);
    expect(asked[0]).toContain(`tabs:${name}`);
    a.close();
    b.close();
  });
});
