/**
 * A key whose first attempt failed keeps its name in a panel that only watched (a replica that
 * never asked for it): the claim named it while it stood, and once the error is written the error
 * record names it — the request's label (method, origin and path, never a query) and its kind —
 * where before the row fell back to "key 1e9bb5…", kind "unknown". The timeline names it too.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry } from "../../devtools/index.ts";
import { validateError } from "../../src/core/records.ts";
import { internalsOf } from "../../src/internals.ts";
import { cluster, tick, until, useFakeClock } from "../harness/replicas.ts";

const ORIGIN = "https://modules.example.test";

describe("a failed first attempt keeps its label and kind in a watching panel", () => {
  beforeEach(async () => {
    // The resolver is a lazy chunk: load it before the clock is faked (module loading is real I/O).
    await import("../../src/core/program/index.ts");
    useFakeClock();
  });
  afterEach(() => vi.useRealTimers());

  it("a program whose entry is missing: its row and its error event say PROGRAM and the entry URL", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = (call) => {
      call.respondRaw(404, "not found");
      return undefined;
    };
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    expect((await until(a!.ensureProgram({ url: `${ORIGIN}/one/main.ts` }))).status).toBe("error");
    await tick(50);
    const row = model.getSnapshot().keys[0]!;
    expect(row).toMatchObject({ kind: "program", label: `PROGRAM ${ORIGIN}/one/main.ts`, status: "error" });
    expect(row.claim).toBeUndefined();
    const last = model.timeline.entries()[0]!;
    expect(last.label).toBe(`PROGRAM ${ORIGIN}/one/main.ts`);
    expect(describeEntry(last)).toContain(`PROGRAM ${ORIGIN}/one/main.ts`);
    model.destroy();
    c.destroy();
  });

  it("a fetch answered 500: its row and its error event say GET and the URL, without its query", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 500, body: {} });
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    const req = { url: "https://api.example.test/items?token=s3cret" };
    expect((await until(a!.ensure(req, { retry: 0 }))).status).toBe("error");
    await tick(50);
    expect(model.getSnapshot().keys[0]).toMatchObject({ kind: "fetch", label: "GET https://api.example.test/items?…", status: "error" });
    expect(model.timeline.entries()[0]!.label).toBe("GET https://api.example.test/items?…");
    // The very label the claim and a result carry: no secret of the request enters the record.
    expect(internalsOf(b!).records.errors.get(a!.keyOf(req))).toMatchObject({
      label: "GET https://api.example.test/items?…",
      kind: "fetch",
    });
    expect(JSON.stringify(internalsOf(b!).records.errors.get(a!.keyOf(req)))).not.toContain("s3cret");
    model.destroy();
    c.destroy();
  });
});

describe("an error record's label and kind from a peer", () => {
  it("absent is fine (records of older versions); a label that is not a string or an unknown kind makes it malformed", () => {
    expect(validateError({ rev: 1, message: "m" })).toEqual({ rev: 1, message: "m" });
    expect(validateError({ rev: 1, message: "m", label: "GET https://a.test/x", kind: "program" })).toEqual({
      rev: 1,
      message: "m",
      label: "GET https://a.test/x",
      kind: "program",
    });
    expect(validateError({ rev: 1, message: "m", label: ["GET"] })).toBe("error.label is not a string");
    expect(validateError({ rev: 1, message: "m", kind: "constructor" })).toBe("error.kind is not fetch or program");
    expect(validateError({ rev: 1, message: "m", kind: null })).toBe("error.kind is not fetch or program");
  });
});
