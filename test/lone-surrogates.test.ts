import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { cluster, until, URL_A, useFakeClock } from "./harness/replicas.ts";

/**
 * A server that cuts a string in the middle of an emoji (`text.slice(0, 80)` in JavaScript) sends
 * a lone surrogate escape, e.g. "\ud83d". JSON.parse keeps it; the doc's encoding (UTF-8) turns it
 * into U+FFFD. The writer must record what every replica will read, or it shows other data than
 * its peers (and than itself after a reload), and two object keys that differ only there merge.
 */
describe("a result holding lone surrogate escapes reads the same on every replica", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the writer, a peer and a replica loading the doc later see equal data", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, text: '{"preview":"Hello \\ud83d","list":["\\ude00",{"k\\ud800":1}],"ok":"\\ud83d\\ude00"}' });
    const writer = await until(a!.ensure({ url: URL_A }));
    const peer = await until(b!.ensure({ url: URL_A }));
    expect(c.host.calls).toHaveLength(1);
    const later = new Y.Doc();
    Y.applyUpdate(later, Y.encodeStateAsUpdate(c.docOf(a!)));
    const reloaded = createSharedFetchStore({ doc: later, fetch: c.host.fetch, settleMs: 0 }).snapshot({ url: URL_A });
    expect(peer.data).toEqual({ preview: "Hello \ufffd", list: ["\ufffd", { "k\ufffd": 1 }], ok: "😀" });
    expect(writer.data).toEqual(peer.data);
    expect(reloaded.data).toEqual(peer.data);
  });
});
