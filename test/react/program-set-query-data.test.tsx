// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query": data the app sets with setQueryData stays until the next
 * fetch, and an older result never replaces it. A program's mount or focus is met by any recorded
 * resolution, however old; one older than the app's set is no answer to it: the focus re-resolves
 * (as TanStack's focus refetch reads the server), instead of putting the older resolution back
 * over the set data with no request.
 */
import { focusManager, QueryClient } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedProgramOptions, useProgram, type ProgramData } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { app } from "../harness/render-app.tsx";

const MAIN = "https://modules.example.test/app/main.js";
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
});

function refocus() {
  act(() => {
    focusManager.setFocused(false);
    focusManager.setFocused(true);
  });
}

describe("useProgram and setQueryData: an older recorded resolution never replaces the app's set", () => {
  it(
    "a focus after setQueryData re-resolves and shows the host's code, never the resolution from before the set",
    { timeout: 20_000 },
    async () => {
      const c = cluster(1, { settleMs: 0 });
      let version = 0;
      c.host.auto = (call) => {
        call.respondRaw(200, `export const version = ${++version};\n`, { "content-type": "text/javascript" });
        return undefined;
      };
      const seen: string[] = [];
      function Pane() {
        const contents = useProgram(MAIN).data?.files[0]?.contents;
        if (contents && contents !== seen.at(-1)) seen.push(contents);
        return null;
      }
      const client = new QueryClient();
      render(app(c.stores[0]!, <Pane />, client));
      await eventually(() => expect(seen).toEqual(["export const version = 1;\n"]));

      // An editor's optimistic edit of the entry module.
      const { queryKey } = sharedProgramOptions(c.stores[0]!, MAIN);
      act(() => void client.setQueryData<ProgramData>(queryKey, (p) => ({ ...p!, files: [{ ...p!.files[0]!, contents: "edited" }] })));
      await eventually(() => expect(seen.at(-1)).toBe("edited"));

      refocus();
      await eventually(() => expect(seen.at(-1)).toBe("export const version = 2;\n"));
      expect(seen).toEqual(["export const version = 1;\n", "edited", "export const version = 2;\n"]);
      expect(c.host.calls).toHaveLength(2);
    },
  );

  it("with no set, a focus is still met by the recorded resolution (no request)", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => {
      call.respondRaw(200, "export const v = 1;\n", { "content-type": "text/javascript" });
      return undefined;
    };
    let status = "";
    function Pane() {
      status = useProgram(MAIN).status;
      return null;
    }
    render(app(c.stores[0]!, <Pane />));
    await eventually(() => expect(status).toBe("success"));
    refocus();
    await act(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(c.host.calls).toHaveLength(1);
  });

  it("an initialData of the app's (a stand-in, not a set) is replaced by the recorded resolution with no request", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => {
      call.respondRaw(200, "export const v = 1;\n", { "content-type": "text/javascript" });
      return undefined;
    };
    await c.stores[0]!.ensureProgram({ url: MAIN });
    const standIn: ProgramData = { main: "/app/main.js", files: [{ name: "/app/main.js", contents: "loading" }], externals: [] };
    let contents: string | undefined;
    function Pane() {
      contents = useProgram(MAIN, { initialData: standIn }).data?.files[0]?.contents;
      return null;
    }
    render(app(c.stores[0]!, <Pane />));
    await eventually(() => expect(contents).toContain("v = 1"));
    expect(c.host.calls).toHaveLength(1);
  });
});
