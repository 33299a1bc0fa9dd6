/**
 * A program's demand after the app set its data (setQueryData) is met by a resolution sent after
 * that set: the query function turns "since the set" into an age (now − set) and the store judges
 * the recorded resolution by it. Both must read one "now": on a busy machine the clock's ms ticks
 * between the query function's read and the store's, and the window shrank by that tick, so a
 * resolution sent the ms after the set was taken for older than it and every module was requested
 * again. Deterministic: each read of Date.now is 1 ms later than the one before.
 */
import { QueryClient } from "@tanstack/react-query";
import { afterEach, expect, it, vi } from "vitest";
import { sharedProgramOptions, type ProgramData } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";

const MAIN = "https://modules.example.test/app/main.js";
const SET = 2_000;

afterEach(() => void vi.useRealTimers());

it("a resolution sent the ms after the app's set answers the next fetch with no request, while the clock ticks", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(1_000);
  const c = cluster(2, { settleMs: 0 });
  let version = 0;
  c.host.auto = (call) => {
    call.respondRaw(200, `export const version = ${++version};\n`, { "content-type": "text/javascript" });
    return undefined;
  };
  const [a, b] = c.stores;
  await a!.ensureProgram({ url: MAIN });
  const client = new QueryClient();
  const options = sharedProgramOptions(a!, MAIN);
  vi.setSystemTime(SET);
  const edited: ProgramData = { main: "/app/main.js", files: [{ name: "/app/main.js", contents: "edited" }], externals: [] };
  client.setQueryData<ProgramData>(options.queryKey, edited);
  // Another replica re-resolves the program after the set (its request sent at SET + 1).
  vi.setSystemTime(SET + 1);
  await b!.refetchProgram({ url: MAIN });
  expect(c.host.calls).toHaveLength(2);

  vi.setSystemTime(SET + 10);
  let now = Date.now();
  const ticking = vi.spyOn(Date, "now").mockImplementation(() => (now += 1));
  try {
    const data = await client.fetchQuery({ ...options, staleTime: 0 });
    expect(data.files[0]!.contents).toBe("export const version = 2;\n");
  } finally {
    ticking.mockRestore();
  }
  expect(c.host.calls).toHaveLength(2);
});
