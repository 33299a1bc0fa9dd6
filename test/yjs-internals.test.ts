import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { creatorOf, deleteElement, forEachLive, hasUpdateListeners, indexOfElement, isDeletedType } from "../src/core/yjs-internals.ts";

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
});
