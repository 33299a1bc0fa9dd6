/**
 * A program's resolution joined, as a fetch's is: B asks for a program while A resolves it and
 * waits on A's claim instead of resolving it too; B's store tells one `joined` event (kind
 * "program") naming A (real HTTP module host on 127.0.0.1, real timers, explicit host events).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StoreEvent } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { countsOf, GRAPH, GRAPH_PATHS, hosts } from "./helpers.ts";

const servers = hosts();
afterEach(() => servers.closeAll());

describe("an ask of a program another replica resolves now (the `joined` event)", () => {
  it("B joins A's resolution in flight: one `joined` of kind program naming A, each file requested once", async () => {
    const h = await servers.start({ ...GRAPH });
    h.hold("/app/main.ts");
    const c = cluster(2, { fetch: globalThis.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    const events: StoreEvent[] = [];
    b!.onEvent((e) => events.push(e));
    const req = { url: h.url("/app/main.ts") };
    const first = a!.ensureProgram(req);
    await h.waitForHeld(1);
    const joined = b!.ensureProgram(req);
    await vi.waitFor(() => expect(events.some((e) => e.type === "joined")).toBe(true));
    h.releaseAll();
    const [sa, sb] = await Promise.all([first, joined]);
    expect(sb.data).toEqual(sa.data);
    expect(countsOf(h, GRAPH_PATHS)).toEqual({ "/app/main.ts": 1, "/app/a.ts": 1, "/app/b.ts": 1, "/app/lib/c.ts": 1 });
    expect(events.filter((e) => e.type === "joined")).toEqual([
      { type: "joined", kind: "program", key: b!.programKeyOf(req), rev: 1, to: a!.replicaId },
    ]);
    expect(events.map((e) => e.type)).not.toContain("claimed");
  });
});
