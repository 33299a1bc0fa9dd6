/**
 * Work that scales with the change, not with what is open: a SharedWorker tab's open looks (its
 * disabled queries, and unobserved queries it read, open until they leave its cache) are each read
 * again by the worker at every change of the doc, and a look's read normalised and hashed its
 * request anew. With 1 000 looks open, every other request of every tab cost a thousand reads
 * (1.5 ms per request with none open, 13 ms with 1 000, 33 ms with 4 000 on this machine). A look
 * is now read again only when its own key's recorded result changed. Counted, not timed: the
 * worker's reads of what is recorded while another tab asks 20 other keys. Real ports, the
 * worker's real store and Yjs docs; the simulated host.
 */
import { describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { browser, until } from "./browser-sim.ts";

type Looking = SharedFetchStoreWithExtras & { look(kind: "fetch", req: unknown, done: () => void): () => void };
const url = (path: string) => `http://127.0.0.1:9/open-looks/${path}`;

describe("open looks of a SharedWorker tab", () => {
  it("1 000 open looks cost the worker no read at another key's change; a look's own key still reaches it", async () => {
    const b = browser(new Host());
    b.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const tabA = b.tab() as SharedFetchStoreWithExtras;
    const tabB = b.tab() as Looking;
    await tabA.ensure({ url: url("warm") });
    let told = 0;
    for (let i = 0; i < 1000; i++) tabB.look("fetch", { url: url(`looked/${i}`) }, () => told++);
    await until(() => told >= 1000);
    const worker = b.workerStore();
    const reads = vi.spyOn(worker, "resultInfo");
    for (let i = 0; i < 20; i++) await tabA.ensure({ url: url(`other/${i}`) });
    // One read per answer to tab A (its settled message), none per open look.
    expect(reads.mock.calls.length).toBeLessThan(100);
    // A result recorded for a looked-at key still reaches the tab that looks.
    const before = told;
    await tabA.ensure({ url: url("looked/7") });
    await until(() => told > before);
    expect(tabB.snapshot({ url: url("looked/7") })).toMatchObject({ status: "success" });
  });
});
