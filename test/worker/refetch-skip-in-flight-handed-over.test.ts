/**
 * connectBrowser's tab mode (no SharedWorker, or a worker that failed): an explicit refetch asked
 * before the tab's own replica (a chunk loaded on demand) is made is handed over to it. It lost its
 * skipInFlight on the way: the refetch joined another tab's request sent before the call, and the
 * user who pressed "refresh" after a deploy was shown what the host served before it. Real docs,
 * stores and connectTabs; fake-indexeddb; FakeLocks; the simulated host.
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { cleanup } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/skip-handed-over";
const MAIN = "http://127.0.0.1:9/app/skip-handed-over.ts";

function tabs(host: Host, name: string) {
  const locks = new FakeLocks();
  let n = 0;
  return () => {
    const store = connectBrowser({ name, fetch: host.fetch, locks: locks.forTab(`t${++n}`) });
    cleanup(() => store.destroy());
    expect(store.mode).toBe("tab");
    return store;
  };
}

describe("a refetch with skipInFlight asked before the tab's replica loaded (tab mode)", () => {
  it("does not join another tab's request sent before the call: it waits for it, then sends its own", async () => {
    const host = new Host();
    const tab = tabs(host, `skip-handed-over-${process.pid}`);
    const a = tab();
    const first = a.ensure({ url: API });
    const [call] = await host.whenCalls(1);
    // B opens and its user asks for what the host serves now, before B's replica exists.
    const b = tab();
    const own = b.refetch({ url: API }, { skipInFlight: true });
    // B's replica is made and sees A's claim before A's answer comes.
    for (let i = 0; i < 200 && b.claims().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(b.claims()).toHaveLength(1);
    call!.respond(200, { v: 1 });
    await expect(first).resolves.toMatchObject({ data: { v: 1 } });
    // Its own request, not the answer to A's.
    const next = await Promise.race([host.whenCalls(2).then((calls) => calls[1]!), own]);
    expect(next).toHaveProperty("respond");
    (next as (typeof host.calls)[number]).respond(200, { v: 2 });
    await expect(own).resolves.toMatchObject({ status: "success", data: { v: 2 } });
    expect(host.calls).toHaveLength(2);
  });

  it("a program's refetch keeps it too: the new code is resolved, not the one in flight", async () => {
    const host = new Host();
    const tab = tabs(host, `skip-handed-over-program-${process.pid}`);
    const a = tab();
    const first = a.ensureProgram({ url: MAIN });
    const [call] = await host.whenCalls(1);
    const b = tab();
    const own = b.refetchProgram({ url: MAIN }, { skipInFlight: true });
    for (let i = 0; i < 200 && b.claims().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(b.claims()).toHaveLength(1);
    call!.respondRaw(200, "export const v = 1;\n");
    await first;
    const next = await Promise.race([host.whenCalls(2).then((calls) => calls[1]!), own]);
    expect(next).toHaveProperty("respondRaw");
    (next as (typeof host.calls)[number]).respondRaw(200, "export const v = 2;\n");
    expect((await own).data?.files[0]?.contents).toBe("export const v = 2;\n");
    expect(host.calls).toHaveLength(2);
  });
});
