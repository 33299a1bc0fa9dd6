/**
 * Invariant 14: a program record from a peer with a non-JSON field (a bigint) is malformed like a
 * fetch result's: listed, ignored, the good program kept; and the devtools model keeps following
 * the doc (a throw while measuring it would freeze the panel on what it last knew).
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../devtools/index.ts";
import { ROOT, TABLES } from "../src/internals.ts";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const PROG = "https://modules.example.test/app/main.ts";

let consoleError: MockInstance<typeof console.error>;
beforeEach(() => {
  useFakeClock();
  consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => {
  consoleError.mockRestore();
  vi.useRealTimers();
});

/** A peer's program record for PROG at `rev` whose data holds a bigint, through a real Yjs update. */
async function peerWritesBigintProgram(c: ReturnType<typeof cluster>, a: SharedFetchStoreWithExtras, rev: number, seq: number) {
  const peer = new Y.Doc();
  c.net.add(peer);
  await tick();
  const lane = new Y.Array<unknown>();
  const data = { main: "/app/main.ts", files: [], externals: [], size: 10n };
  lane.push([{ t: TABLES.programs, k: a.programKeyOf({ url: PROG }), v: { rev, data }, s: seq }]);
  peer.getArray<unknown>(ROOT).push([lane]);
  await tick(10);
}

describe("invariant 14: program records", () => {
  it("a program record with a non-JSON field (bigint) is malformed, and the devtools model keeps following the doc", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, text: "export const x = 1;" });
    await until(a!.ensureProgram({ url: PROG }));
    const model = createDevtoolsModel(a!);
    expect(model.getSnapshot().keys).toHaveLength(1);

    // A peer (through a real Yjs update) writes a program at a newer revision with one extra non-JSON field.
    await peerWritesBigintProgram(c, a!, 2, 1e9);
    // Expected: it is malformed (not JSON), listed, and the good program stands.
    expect(a!.malformed().map((m) => m.map)).toContain(TABLES.programs);
    expect(a!.programSnapshot({ url: PROG }).data?.files.map((f) => f.name)).toEqual(["/app/main.ts"]);

    // And the panel keeps following the doc: a new fetch key shows up in it.
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(a!.ensure({ url: URL_A }));
    await tick(500);
    expect(
      model
        .getSnapshot()
        .keys.map((k) => k.kind)
        .sort(),
    ).toEqual(["fetch", "program"]);
    expect(consoleError).not.toHaveBeenCalled();
    model.destroy();
  });

  it("same, through the panel only: the model keeps following the doc even if such a program stands", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const model = createDevtoolsModel(a!);
    await peerWritesBigintProgram(c, a!, 1, 1);
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(a!.ensure({ url: URL_A }));
    await tick(500);
    expect(consoleError.mock.calls.map((call) => `${String(call[0])} ${String(call[1])}`).slice(0, 1)).toEqual([]);
    expect(model.getSnapshot().keys.map((k) => k.kind)).toContain("fetch");
    expect(consoleError).not.toHaveBeenCalled();
    model.destroy();
  });
});
