/**
 * A store replaced while its doc and presence live on (a logout, a new identity: a new store on the
 * same doc and connection). The panel's model of the old store listened to that doc and that
 * awareness, and never let go: each old store, its model and its timeline stayed reachable from
 * them for as long as the page lived. Once it sees the store destroyed, the model lets go.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { devtoolsModelFor } from "../../devtools/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const URL_A = "https://api.example.test/items";
const answer = () => Promise.resolve(new Response(JSON.stringify({ ok: 1 }), { headers: { "content-type": "application/json" } }));

/**
 * Whether the object behind `ref` is gone after full collections, 10 ms apart: a timer of a few ms
 * (a destroyed store's last jobs) may hold it briefly, which is no leak; a listener on the doc or
 * the awareness would hold it for good.
 */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 20 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  return ref.deref() === undefined;
}

describe("a store replaced on a doc and a connection that live on: its panel lets it go", () => {
  it("the model of a destroyed store keeps its last view, marked, and is no longer reachable from the doc or the awareness", async () => {
    const doc = new Y.Doc();
    const awareness = new Awareness(doc);
    // In a function of its own: nothing of the test's holds the old store or its model after it.
    const { ref, last } = await (async () => {
      const store = createSharedFetchStore({ doc, awareness, fetch: answer, settleMs: 0 });
      const model = devtoolsModelFor(store, awareness); // the panel's own model
      const off = model.subscribe(() => {});
      await store.ensure({ url: URL_A });
      store.destroy();
      // The next store on the same doc writes: the old model sees its store destroyed then.
      const next = createSharedFetchStore({ doc, awareness, fetch: answer, settleMs: 0 });
      await next.refetch({ url: URL_A });
      await new Promise((resolve) => setTimeout(resolve, 0));
      off();
      next.destroy();
      return { ref: new WeakRef(store), last: model.getSnapshot() };
    })();
    expect(last.storeDestroyed).toBe(true);
    expect(last.keys.map((k) => k.result?.rev)).toEqual([1]);
    expect(await collected(ref)).toBe(true);
    // The doc and the awareness live on (the connection's): their listeners were what held it.
    expect(awareness.getLocalState()).not.toBeNull();
    awareness.destroy();
  });
});
