/**
 * Invariant 11 for programs: every request of a resolution follows one claim, so a resolution
 * another replica joined goes on once its claimant no longer wants it (its useProgram unmounted),
 * while the joiner, present, still waits: each module is requested once. Once nobody waits, the
 * resolution is aborted at the network, every request of it.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { HELPER, MAIN } from "../harness/flaky-program.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { cluster } from "../harness/replicas.ts";

beforeAll(() => import("../../src/core/program/index.ts"));

const js = { "content-type": "text/javascript" };

/** A's resolution of MAIN under way (main.ts asked, unanswered), B waiting on it, A told so. */
async function bJoinedA() {
  const presence = linkedPresence(2);
  const c = cluster(0, { settleMs: 0 });
  const a = c.join({ awareness: presence.all[0] });
  const b = c.join({ awareness: presence.all[1] });
  c.host.auto = () => undefined;
  const asked = new AbortController();
  a.ensureProgram({ url: MAIN }, { signal: asked.signal }).catch(() => {});
  await vi.waitFor(() => expect(c.host.calls).toHaveLength(1));
  const waits = new AbortController();
  const waiting = b.ensureProgram({ url: MAIN }, { signal: waits.signal });
  waiting.catch(() => {});
  const bId = presence.all[1]!.clientID;
  await vi.waitFor(() => expect(presence.all[0]!.getStates().get(bId)?.sharedFetch?.waits).toBeDefined());
  return { c, asked, waits, waiting };
}

describe("a program resolution another replica joined outlives its claimant's interest (invariant 11)", () => {
  it("A's ask is aborted mid-resolution while B waits: the resolution goes on, each module requested once", async () => {
    const { c, asked, waiting } = await bJoinedA();
    asked.abort();
    await new Promise((r) => setTimeout(r, 50));
    c.host.calls[0]!.respondRaw(200, `import { h } from "./helper.ts";\nexport const main = h;\n`, js);
    await vi.waitFor(() => expect(c.host.calls).toHaveLength(2));
    expect(c.host.calls[1]!.url).toBe(HELPER);
    c.host.calls[1]!.respondRaw(200, `export const h = 1;\n`, js);
    await expect(waiting).resolves.toMatchObject({ status: "success" });
    expect(c.host.calls.map((call) => [new URL(call.url).pathname, call.aborted])).toEqual([
      ["/app/main.ts", false],
      ["/app/helper.ts", false],
    ]);
  });

  it("B stops waiting too: the module request in flight is aborted, and nobody resolves the program again", async () => {
    const { c, asked, waits } = await bJoinedA();
    asked.abort();
    await new Promise((r) => setTimeout(r, 50));
    expect(c.host.calls[0]!.aborted).toBe(false);
    waits.abort();
    await vi.waitFor(() => expect(c.host.calls[0]!.aborted).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.host.calls).toHaveLength(1);
  });
});
