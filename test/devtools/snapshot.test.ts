import { readdirSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";
import { internalsOf } from "../../src/internals.ts";

const req = { url: URL_A };

describe("devtools model snapshots", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("keeps its identity across no-op updates and tells no listener about them", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(a!.ensure(req));
    await until(a!.ensure({ url: `${URL_A}/other` }));
    const awareness = new Awareness(new Y.Doc());
    const model = createDevtoolsModel(a!, { awareness });
    awareness.setLocalStateField("note", 1);
    // Read, then subscribe: what useSyncExternalStore does.
    const first = model.getSnapshot();
    let notified = 0;
    model.subscribe(() => notified++);
    expect(first.keys).toHaveLength(2);

    // The same record written again (Yjs reports a change), a write outside the lanes, the same presence.
    const key = a!.keyOf(req);
    let docChanges = 0;
    internalsOf(a!).records.results.onChange(() => docChanges++);
    const result = internalsOf(b!).records.results.get(key)!;
    internalsOf(b!).records.results.set(key, { ...result });
    c.docOf(b!).getMap("elsewhere").set("x", 1);
    awareness.setLocalStateField("note", 1);
    await tick();
    expect(docChanges).toBeGreaterThan(0);
    expect(model.getSnapshot()).toBe(first);
    expect(notified).toBe(0);

    // A real change to one key replaces that row only.
    const other = a!.keyOf({ url: `${URL_A}/other` });
    await until(b!.refetch({ url: `${URL_A}/other` }));
    const next = model.getSnapshot();
    expect(next).not.toBe(first);
    expect(notified).toBeGreaterThan(0);
    expect(next.keys.find((r) => r.key === key)).toBe(first.keys.find((r) => r.key === key));
    expect(next.keys.find((r) => r.key === other)!.result!.rev).toBe(2);
    model.destroy();
    awareness.destroy();
    c.destroy();
  });

  it("the event log keeps the last maxEvents events, oldest first, with local timestamps", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: 1 });
    const model = createDevtoolsModel(a!, { maxEvents: 4 });
    const all: string[] = [];
    a!.onEvent((e) => all.push(`${e.type}${"rev" in e ? ` ${e.rev}` : ""}`));
    await until(a!.ensure(req));
    await until(a!.refetch(req));
    await until(a!.refetch(req));
    const { events } = model.getSnapshot();
    expect(all.length).toBeGreaterThan(4);
    expect(events.map((e) => `${e.event.type}${"rev" in e.event ? ` ${e.event.rev}` : ""}`)).toEqual(all.slice(-4));
    expect(events.map((e) => e.seq)).toEqual([all.length - 3, all.length - 2, all.length - 1, all.length]);
    expect(events.every((e, i) => i === 0 || e.at >= events[i - 1]!.at)).toBe(true);
    expect(() => createDevtoolsModel(a!, { maxEvents: 0 })).toThrow(/maxEvents must be a positive integer/);
    model.destroy();
    c.destroy();
  });

  it("a destroyed model stops listening and keeps its last snapshot", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const model = createDevtoolsModel(a!);
    const before = model.getSnapshot();
    let notified = 0;
    model.subscribe(() => notified++);
    model.destroy();
    c.host.auto = () => ({ status: 200, body: 1 });
    await until(b!.ensure(req));
    await tick();
    expect(notified).toBe(0);
    expect(before.keys).toEqual([]);
    c.destroy();
  });

  it("the model and its parts import no React (a test like zustand's)", () => {
    const dir = new URL("../../devtools/", import.meta.url);
    const core = readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "index.ts" && !f.startsWith("use"));
    expect(core).toContain("model.ts");
    for (const file of core) {
      const text = readFileSync(new URL(file, dir), "utf8");
      // styles.ts imports the CSSProperties type only, which leaves nothing at run time.
      const imports = [...text.matchAll(/^import (type )?.*from "([^"]+)";$/gm)].filter(([, type, from]) => !type && /^react/.test(from!));
      expect(imports, file).toEqual([]);
    }
  });

  it("a store without the extras gets a message saying which store to pass", () => {
    const plain = { replicaId: "x", snapshot: () => ({ status: "idle" as const }) };
    expect(() => createDevtoolsModel(plain as never)).toThrow(/pass the store returned by createSharedFetchStore/);
  });
});
