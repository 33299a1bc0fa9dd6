// @vitest-environment jsdom
/**
 * A program evicted from the doc (another tab's LRU bound, maxPrograms; or the devtools' evict)
 * starts again at revision 1 when next resolved. A tab still showing it at a higher revision takes
 * that newer resolution, as it takes any other replica's (README, "Other replicas' results reach
 * TanStack's own hooks too"): it refused it as older by revision and showed the evicted program
 * until its next focus or poll.
 */
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { app } from "../harness/render-app.tsx";

const SHOWN = "https://modules.example.test/shown/main.js";
const OTHER = "https://modules.example.test/other/main.js";
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });

afterEach(cleanup);

describe("a tab showing a program takes the resolution recorded after another tab evicted it", () => {
  it(
    "tab B's LRU (maxPrograms: 1) evicts what tab A shows at revision 2; B resolves it again: A shows the new code",
    { timeout: 20_000 },
    async () => {
      const c = cluster(2, { settleMs: 0, maxPrograms: 1 });
      const served = new Map<string, number>();
      c.host.auto = (call) => {
        const path = new URL(call.url).pathname;
        served.set(path, (served.get(path) ?? 0) + 1);
        call.respondRaw(200, `export const version = ${served.get(path)};\n`, { "content-type": "text/javascript" });
        return undefined;
      };
      const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
      const seen: string[] = [];
      let refetch = () => {};
      function Pane() {
        const q = useProgram(SHOWN);
        refetch = () => void q.refetch();
        const contents = q.data?.files[0]?.contents;
        if (contents && contents !== seen.at(-1)) seen.push(contents);
        return null;
      }
      render(app(a, <Pane />));
      await eventually(() => expect(seen.at(-1)).toContain("version = 1"));
      act(() => refetch());
      await eventually(() => expect(seen.at(-1)).toContain("version = 2"));
      expect(a.programResultInfo({ url: SHOWN })?.rev).toBe(2);

      // Tab B used the program once, then another: over its bound, it evicts the one it no longer uses.
      await act(() => b.ensureProgram({ url: SHOWN }));
      await act(() => b.ensureProgram({ url: OTHER }));
      await eventually(() => expect(a.programResultInfo({ url: SHOWN })).toBeUndefined());

      // Asked for again (tab B, or any other): resolved anew, at revision 1.
      await act(() => b.ensureProgram({ url: SHOWN }));
      expect(a.programResultInfo({ url: SHOWN })?.rev).toBe(1);
      await eventually(() => expect(seen.at(-1)).toContain("version = 3"));
      expect(seen).toEqual(["export const version = 1;\n", "export const version = 2;\n", "export const version = 3;\n"]);
    },
  );
});
