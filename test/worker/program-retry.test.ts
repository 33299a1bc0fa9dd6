/**
 * ensureProgram's retry in SharedWorker mode, as a fetch's: a policy that is data crosses the
 * port and runs in the worker's claim; one that is a function is asked in the tab that asked.
 * Real ports, docs and stores (browser-sim).
 */
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { browser } from "./browser-sim.ts";

const MAIN = "http://127.0.0.1:9/app/main.ts";

/** The entry fails with each status in turn, then is served. */
function answering(host: Host, statuses: number[]): void {
  host.auto = (call) => ({ status: statuses[call.n - 1] ?? 200, text: `export const n = ${call.n};\n` });
}

it("retry: 2, retryDelay: 0 through the port: the worker re-resolves in its claim, the program is the answer", async () => {
  const host = new Host();
  answering(host, [503, 500]);
  const t = browser(host).tab();
  const snap = await t.ensureProgram({ url: MAIN }, { retry: 2, retryDelay: 0 });
  expect(snap).toMatchObject({ status: "success" });
  expect(snap.data!.files[0]!.contents).toBe("export const n = 3;\n");
  expect(host.calls).toHaveLength(3);
});

it("a retry function stays in the tab: asked after each failure with TanStack's count, its 'no' records the error", async () => {
  const host = new Host();
  answering(host, [503, 500]);
  const t = browser(host).tab();
  const seen: [number, number | undefined][] = [];
  const snap = await t.refetchProgram!(
    { url: MAIN },
    { retry: (count, error) => (seen.push([count, error.status]), error.status === 503), retryDelay: 0 },
  );
  expect(snap).toMatchObject({ status: "error", error: { status: 500 } });
  expect(seen).toEqual([
    [0, 503],
    [1, 500],
  ]);
  expect(host.calls).toHaveLength(2);
});
