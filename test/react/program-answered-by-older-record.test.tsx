// @vitest-environment jsdom
/**
 * README, "Freshness is judged on the recorded result's age": `dataUpdatedAt` is the writer's `at`
 * for what other replicas recorded. A program's mount is met by any recorded resolution, however
 * old: answered so, it must still be dated by that resolution's `at` (as the same resolution is in
 * a tab the bridge pushed it to), not by the mount, where TanStack dates what a query function
 * returns: a program resolved a while ago read as resolved just now in one tab and not in another.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedProgramOptions, useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { app } from "../harness/render-app.tsx";

const MAIN = "https://modules.example.test/app/main.js";
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });

afterEach(cleanup);

/** Tab A resolves the program; 300 ms later tab B (its own store and QueryClient) mounts it. */
async function resolvedBeforeB() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => {
    call.respondRaw(200, "export const v = 1;\n", { "content-type": "text/javascript" });
    return undefined;
  };
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  await a.ensureProgram({ url: MAIN });
  const at = a.programResultInfo({ url: MAIN })!.at!;
  await pause(300);
  return { c, b, at };
}

describe("a program's mount answered by an earlier resolution is dated by that resolution's `at`", () => {
  it("useProgram: no request, dataUpdatedAt is tab A's `at`, not the mount's time", async () => {
    const { c, b, at } = await resolvedBeforeB();
    let state = { status: "", updatedAt: 0, fetching: "" };
    function Pane() {
      const q = useProgram(MAIN);
      state = { status: q.status, updatedAt: q.dataUpdatedAt, fetching: q.fetchStatus };
      return <span data-testid="b">{q.data?.files[0]?.contents}</span>;
    }
    render(app(b, <Pane />));
    await eventually(() => expect(state).toMatchObject({ status: "success", fetching: "idle" }));
    expect(screen.getByTestId("b").textContent).toContain("v = 1");
    expect(c.host.calls).toHaveLength(1);
    expect(state.updatedAt).toBe(at);
  });

  it("useQuery(sharedProgramOptions) with staleTime 200 ms goes stale with tab A's resolution, not 200 ms after its own mount", async () => {
    const { b, at } = await resolvedBeforeB();
    let stale: boolean | undefined;
    let updatedAt = 0;
    function Pane() {
      const q = useQuery(sharedProgramOptions(b, MAIN, { staleTime: 200 }));
      if (q.fetchStatus === "idle" && q.isSuccess) {
        stale = q.isStale;
        updatedAt = q.dataUpdatedAt;
      }
      return null;
    }
    render(app(b, <Pane />, new QueryClient()));
    await eventually(() => expect(updatedAt).toBeGreaterThan(0));
    expect(updatedAt).toBe(at);
    expect(stale).toBe(true);
  });
});
