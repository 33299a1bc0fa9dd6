/**
 * A connector given a name or a URL where its options object belongs (as y-indexeddb's
 * `new IndexeddbPersistence(name, doc)` and a WebSocket's `new WebSocket(url)` take them) says so,
 * naming what came, before anything is opened: it said "`name` must be a non-empty string, got
 * undefined" for `connectTabs(doc, "app")`, and threw "Cannot read properties of undefined" for
 * `connectHocuspocus(doc)`.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { connectPeers, connectTabs } from "../src/index.ts";
import { connectHocuspocus } from "../src/hocuspocus/index.ts";

const observerCount = (doc: Y.Doc): number =>
  [...(doc as unknown as { _observers: Map<string, Set<unknown>> })._observers.values()].reduce((n, set) => n + set.size, 0);

const cases: [string, unknown, string][] = [
  ["a name in place of the options", "app", 'got "app"'],
  ["a URL in place of the options (its token hidden)", "wss://sync.example.test/room?token=s3cret", 'got "wss://sync.example.test/room?…"'],
  ["no options", undefined, "got undefined"],
  ["null", null, "got null"],
  ["a function (whose name is empty)", () => "app", "got a function"],
];

describe("invariant 13 (bad input is named): connectors whose options are not an object", () => {
  for (const [what, given, got] of cases) {
    it(`${what}: connectTabs and connectHocuspocus name it, as connectPeers does (connectTabs and connectPeers with the options they expect: connectTabs(doc) names name), and attach nothing to the doc`, () => {
      const doc = new Y.Doc();
      const before = observerCount(doc);
      expect(() => connectTabs(doc, given as never)).toThrow(
        new TypeError(`connectTabs: the options must be { name, indexeddb?, persisted?, snapshotBytes?, locks? }, ${got}`),
      );
      expect(() => connectHocuspocus(doc, given as never)).toThrow(
        new TypeError(`connectHocuspocus: the options must be an object, ${got}`),
      );
      expect(() => connectPeers(doc, given as never)).toThrow(`the options must be { url, room, params? }, ${got}`);
      expect(observerCount(doc)).toBe(before);
    });
  }
});

describe("invariant 13 (bad input is named): connectTabs' `locks`", () => {
  it("a `locks` that is no LockManager is named and attaches nothing to the doc; null (no Web Locks) is taken", () => {
    const doc = new Y.Doc();
    const before = observerCount(doc);
    expect(() => connectTabs(doc, { name: "app", locks: 5 as never })).toThrow(
      "shared-fetch: locks must be a LockManager (navigator.locks) or null when given, got a number",
    );
    expect(() => connectTabs(doc, { name: "app", locks: {} as never })).toThrow("got an object without request()");
    expect(observerCount(doc)).toBe(before);
    connectTabs(doc, { name: "app", indexeddb: false, locks: null }).destroy();
  });
});
