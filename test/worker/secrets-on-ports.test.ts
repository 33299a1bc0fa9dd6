/**
 * Invariant 13 through a SharedWorker: what the browser's replica posts to *another* tab (its
 * snapshots, inspection, events, doc mirror) never carries the asking tab's query, headers or body.
 */
import { describe, expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { cleanup, sharedWorkerHere, until } from "./browser-sim.ts";

const S = { query: "q-SECRET-w1", auth: "auth-SECRET-w2", body: "body-SECRET-w3", program: "prog-SECRET-w4" };
const ALL = Object.values(S);

function text(msg: unknown): string {
  return JSON.stringify(msg, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v));
}

describe("invariant 13 through the SharedWorker", () => {
  it("the worker posts nothing secret to a tab that did not ask (snapshots, inspection, events, doc mirror)", async () => {
    sharedWorkerHere();
    const host = new Host();
    host.auto = (call) =>
      call.url.includes("/app/main.ts")
        ? { status: 200, text: "export const x = 1;" }
        : call.url.includes("/fail")
          ? { status: 500, body: { no: 1 } }
          : { status: 200, body: { ok: 1 } };
    const locks = new FakeLocks();
    const name = `hunt-worker-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const workers = new Map<string, BrowserReplica>();
    const posted = new Map<string, string[]>();
    const start = (tag: string) => (workerName: string) => {
      let replica = workers.get(workerName);
      if (!replica) {
        replica = createBrowserReplica({
          locks: locks.forTab(workerName),
          lockName: workerName,
          fetch: host.fetch,
          store: { settleMs: 0 },
        });
        workers.set(workerName, replica);
        cleanup(() => replica!.destroy());
      }
      const channel = new MessageChannel();
      const port = channel.port2;
      const post = port.postMessage.bind(port);
      const log = posted.get(tag) ?? [];
      posted.set(tag, log);
      port.postMessage = ((msg: unknown, transfer?: Transferable[]) => {
        log.push(text(msg));
        return post(msg, transfer as never);
      }) as typeof port.postMessage;
      replica.accept(port as unknown as MessagePort);
      return { port: channel.port1 as unknown as MessagePort };
    };
    const asker = connectBrowser({ name, worker: start("asker"), locks: locks.forTab("asker") });
    const watcher = connectBrowser({ name, worker: start("watcher"), locks: locks.forTab("watcher") });
    cleanup(() => asker.destroy());
    cleanup(() => watcher.destroy());
    const extras = watcher as unknown as { onEvent(l: () => void): () => void; onInspect(l: () => void): () => void };
    extras.onEvent(() => {});
    extras.onInspect(() => {});

    const headers = { authorization: `Bearer ${S.auth}` };
    const get = { url: `https://h.test/items?token=${S.query}`, headers };
    const post = { url: `https://h.test/items?token=${S.query}`, method: "POST", headers, body: JSON.stringify({ pw: S.body }) };
    const fail = { url: `https://h.test/fail?token=${S.query}`, headers };
    // The watcher shows the same keys (same identity, no headers known to it: it subscribes by key only if it asks)
    const unsub = watcher.subscribe({ url: "https://h.test/items" }, () => {});
    expect((await asker.ensure(get)).status).toBe("success");
    expect((await asker.ensure(post)).status).toBe("success");
    expect((await asker.ensure(fail)).status).toBe("error");
    expect((await asker.ensureProgram({ url: `https://h.test/app/main.ts?token=${S.program}` })).status).toBe("success");
    await new Promise((r) => setTimeout(r, 200));
    await until(() => (posted.get("watcher")?.length ?? 0) > 0);
    const toWatcher = (posted.get("watcher") ?? []).join("\n");
    expect(toWatcher).toMatch(/inspect|event/);
    for (const s of ALL) expect(toWatcher, `${s} posted to the watcher tab`).not.toContain(s);
    const toAsker = (posted.get("asker") ?? []).join("\n");
    for (const s of ALL) expect(toAsker, `${s} posted back to the asker`).not.toContain(s);
    unsub();
  });
});
