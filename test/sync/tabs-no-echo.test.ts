import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs } from "../../src/sync/index.ts";
import { messageAwareness, messageSync } from "../../src/sync/tab-protocol.ts";
import { until } from "./wait.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.restoreAllMocks();
});

function openTab(name: string) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, indexeddb: false });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  return { doc, conn, map: doc.getMap<unknown>("m") };
}

const syncUpdate = 2; // y-protocols messageYjsUpdate
const isUpdate = (frame: Uint8Array): boolean => frame[0] === messageSync && frame[1] === syncUpdate;
const isAwareness = (frame: Uint8Array): boolean => frame[0] === messageAwareness;
const presenceOf = (tab: ReturnType<typeof openTab>, other: ReturnType<typeof openTab>): unknown =>
  (tab.conn.awareness.getStates().get(other.doc.clientID) as { sharedFetch?: unknown } | undefined)?.sharedFetch;

describe("connectTabs does not echo", () => {
  it("posts each doc update and awareness change once, from its writer only", async () => {
    const name = `echo-${Math.random().toString(36).slice(2)}`;
    const posted: Uint8Array[] = [];
    const post = BroadcastChannel.prototype.postMessage;
    // A receiver's rebroadcast would be posted while it applies the frame, i.e. before it sees the change.
    vi.spyOn(BroadcastChannel.prototype, "postMessage").mockImplementation(function (this: BroadcastChannel, data: unknown) {
      posted.push(data as Uint8Array);
      post.call(this, data);
    });
    const a = openTab(name);
    const b = openTab(name);
    const c = openTab(name);
    for (const [tab, id] of [
      [a, "ra"],
      [b, "rb"],
      [c, "rc"],
    ] as const) {
      tab.conn.awareness.setLocalStateField("sharedFetch", { replicaId: id, browserId: "br" });
    }
    // Once everyone sees everyone, every handshake query has been answered.
    for (const tab of [a, b, c]) {
      for (const other of [a, b, c]) {
        if (tab !== other) await until(tab.conn.awareness, "change", () => presenceOf(tab, other) !== undefined);
      }
    }

    posted.length = 0;
    a.map.set("x", 1);
    await until(b.doc, "update", () => b.map.get("x") === 1);
    await until(c.doc, "update", () => c.map.get("x") === 1);
    expect(posted.filter(isUpdate)).toHaveLength(1);

    posted.length = 0;
    b.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "rb", browserId: "br2" });
    const seesNewState = (tab: ReturnType<typeof openTab>) => () =>
      (presenceOf(tab, b) as { browserId?: string } | undefined)?.browserId === "br2";
    await until(a.conn.awareness, "change", seesNewState(a));
    await until(c.conn.awareness, "change", seesNewState(c));
    expect(posted.filter(isAwareness)).toHaveLength(1);
    expect(posted).toHaveLength(1);
  });
});
