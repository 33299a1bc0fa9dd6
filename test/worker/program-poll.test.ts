/**
 * In SharedWorker mode too, ensureProgram's maxAgeMs (what a polled useProgram sends) reaches the
 * worker's store: a resolution older than the window is redone, a younger one answers as it is.
 */
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { browser } from "./browser-sim.ts";

const MAIN = "http://127.0.0.1:9/app/main.ts";

it("ensureProgram({ maxAgeMs }) through the port re-resolves a program older than the window, not one within it", async () => {
  const host = new Host();
  let version = 1;
  host.auto = () => ({ status: 200, text: `export const v = ${version};\n` });
  const t = browser(host).tab();
  await expect(t.ensureProgram({ url: MAIN })).resolves.toMatchObject({ status: "success" });
  version = 2;
  const within = await t.ensureProgram({ url: MAIN }, { maxAgeMs: 3_600_000 });
  expect(within.data!.files[0]!.contents).toBe("export const v = 1;\n");
  expect(host.calls).toHaveLength(1);
  // Every recorded resolution is older than a window of 0 ms.
  const older = await t.ensureProgram({ url: MAIN }, { maxAgeMs: 0 });
  expect(older.data!.files[0]!.contents).toBe("export const v = 2;\n");
  expect(host.calls).toHaveLength(2);
});
