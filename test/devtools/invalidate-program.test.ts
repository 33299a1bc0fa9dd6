/**
 * The panel's "invalidate" on a program: the recorded resolution (or error) is dated at the epoch
 * for every replica, and a program record has no age otherwise, so that mark is the only thing an
 * ensure can read. Another replica's next `ensureProgram` re-resolves (a new revision, what the
 * host serves now) instead of answering with the invalidated record; one not invalidated is
 * still answered from the record, with no request.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { cluster, type Cluster } from "../harness/replicas.ts";

const ONE = { url: "https://modules.example.test/one/main.ts" };

/** The harness host answers every call at once with what `files` holds now (404 otherwise). */
function serve(c: Cluster, files: Record<string, string>): void {
  c.host.auto = (call) => {
    const body = files[new URL(call.url).pathname];
    if (body === undefined) call.respondRaw(404, "not found");
    else call.respondRaw(200, body, { "content-type": "text/javascript" });
    return undefined;
  };
}

describe("devtools invalidate of a program", () => {
  // The resolver is a lazy chunk: loaded once up front, not inside the first test's ensure.
  beforeAll(() => import("../../src/core/program/index.ts"));

  it("another replica's next ensureProgram re-resolves the program and gets the new code", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const files: Record<string, string> = { "/one/main.ts": "export const v = 1;\n" };
    serve(c, files);
    expect((await a!.ensureProgram(ONE)).data!.files[0]!.contents).toContain("v = 1");
    // Not invalidated: the record answers B, no request.
    expect((await b!.ensureProgram(ONE)).data!.files[0]!.contents).toContain("v = 1");
    expect(c.host.calls).toHaveLength(1);

    files["/one/main.ts"] = "export const v = 2;\n";
    expect(invalidateKey(a!, a!.programKeyOf(ONE))).toMatchObject({ ok: true, doc: true });
    const snap = await b!.ensureProgram(ONE);
    expect(snap.data!.files[0]!.contents).toContain("v = 2");
    expect(c.host.calls).toHaveLength(2);
    // Dated by its writer again (a program's poll judges it by age), no longer at the epoch.
    expect(b!.programResultInfo(ONE)).toEqual({ rev: 2, at: expect.any(Number) });
    expect(b!.programResultInfo(ONE)!.at).toBeGreaterThan(0);
    // The new revision carries no mark: the next ensure, anywhere, is answered from it.
    expect((await a!.ensureProgram(ONE)).data!.files[0]!.contents).toContain("v = 2");
    expect(c.host.calls).toHaveLength(2);
    c.destroy();
  });

  it("an invalidated program error is resolved again too", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const files: Record<string, string> = {};
    serve(c, files);
    expect((await a!.ensureProgram(ONE)).status).toBe("error");
    files["/one/main.ts"] = "export const v = 1;\n";
    expect(invalidateKey(a!, a!.programKeyOf(ONE))).toMatchObject({ ok: true, doc: true });
    const snap = await b!.ensureProgram(ONE);
    expect(snap.status).toBe("success");
    expect(c.host.calls).toHaveLength(2);
    c.destroy();
  });
});
