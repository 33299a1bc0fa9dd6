import { describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { Awareness } from "y-protocols/awareness";
import { createAwareness, retireAwareness } from "../src/sync/awareness-clock.ts";
import {
  creatorOf,
  deleteElement,
  forEachLive,
  hasUpdateListeners,
  indexOfElement,
  isDeletedType,
  pendingIds,
  pendingUpdate,
} from "../src/core/yjs-internals.ts";

/** The Yjs fields the lanes read are not public API: this pins what they mean on the installed Yjs. */
describe("fenced uses of Yjs private fields (src/core/yjs-internals.ts)", () => {
  it("a nested array knows its creator and when it was deleted", () => {
    const doc = new Y.Doc();
    const root = doc.getArray<Y.Array<unknown>>("root");
    const lane = new Y.Array<unknown>();
    root.push([lane]);
    expect(creatorOf(lane)).toBe(doc.clientID);
    expect(isDeletedType(lane)).toBe(false);
    root.delete(0, 1);
    expect(isDeletedType(lane)).toBe(true);
    expect(creatorOf(doc.getArray("other"))).toBe(0);
  });

  it("elements are found, listed and deleted by their item id, whatever merged them", () => {
    const doc = new Y.Doc();
    const array = doc.getArray<unknown>("a");
    array.push(["x", "y", "z"]); // one item of three elements
    const seen: [string, unknown][] = [];
    forEachLive(array, (id, value) => seen.push([id, value]));
    expect(seen).toEqual([
      [`${doc.clientID}:0`, "x"],
      [`${doc.clientID}:1`, "y"],
      [`${doc.clientID}:2`, "z"],
    ]);
    expect(indexOfElement(array, doc.clientID, 1)).toBe(1);
    deleteElement(array, doc.clientID, 1);
    expect(array.toArray()).toEqual(["x", "z"]);
    expect(indexOfElement(array, doc.clientID, 1)).toBe(-1);
    expect(indexOfElement(array, doc.clientID, 2)).toBe(1);
  });

  it("a doc's update listeners are seen, on either update event; observers of its types are not listeners", () => {
    const doc = new Y.Doc();
    expect(hasUpdateListeners(doc)).toBe(false);
    doc.getArray("a").observeDeep(() => {});
    expect(hasUpdateListeners(doc)).toBe(false);
    for (const event of ["update", "updateV2"] as const) {
      const listener = () => {};
      doc.on(event, listener);
      expect(hasUpdateListeners(doc)).toBe(true);
      doc.off(event, listener);
      expect(hasUpdateListeners(doc)).toBe(false);
    }
  });

  it("an entry whose writer's earlier update is missing is held back, found in Yjs's pending structs until it arrives", () => {
    const writer = new Y.Doc();
    const updates: Uint8Array[] = [];
    writer.on("update", (u: Uint8Array) => updates.push(u));
    writer.getArray("a").push([{ t: "x", k: "1" }]);
    writer.getArray("a").push([{ t: "x", k: "2" }, null, 3]);
    const reader = new Y.Doc();
    expect(pendingUpdate(reader)).toBeUndefined();
    Y.applyUpdate(reader, updates[1]!);
    expect(reader.getArray("a").length).toBe(0);
    const held = pendingUpdate(reader);
    const at = (clock: number) => `${writer.clientID}:${clock}`;
    expect(pendingIds(undefined, { table: "x", key: "2" })).toEqual([]);
    expect(pendingIds(held, { table: "x", key: "2" })).toEqual([at(1)]);
    expect(pendingIds(held, { table: "x", key: "1" })).toEqual([]);
    Y.applyUpdate(reader, updates[0]!);
    expect(reader.getArray("a").length).toBe(4);
    expect(pendingUpdate(reader)).toBeUndefined();
  });

  // Read outside this module, in two places a shared helper would cost the tabs' bundle more than
  // its budget allows: src/sync/awareness-clock.ts unrefs the timer, the development crash
  // simulation (dropPresence in src/core/store.ts) clears it. Pinned here all the same.
  const checkInterval = (awareness: Awareness) =>
    (awareness as unknown as { _checkInterval?: ReturnType<typeof setInterval> })._checkInterval;

  it("y-protocols' Awareness keeps its renewal timer in _checkInterval: clearing it leaves none running", () => {
    vi.useFakeTimers();
    try {
      const awareness = new Awareness(new Y.Doc());
      expect(vi.getTimerCount()).toBe(1);
      expect(checkInterval(awareness)).toBeDefined();
      clearInterval(checkInterval(awareness));
      expect(vi.getTimerCount()).toBe(0);
      awareness.destroy();
    } finally {
      vi.useRealTimers();
    }
  });

  it("the awareness a connector makes does not keep a Node process alive: its renewal timer is unref'd", () => {
    const awareness = createAwareness(new Y.Doc());
    expect((checkInterval(awareness) as unknown as NodeJS.Timeout).hasRef()).toBe(false);
    retireAwareness(awareness);
  });
});
