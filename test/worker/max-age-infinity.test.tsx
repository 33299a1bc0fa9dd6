// @vitest-environment jsdom
/**
 * `staleTime: Infinity` (or `"static"`) is how a TanStack user says "fetch once, never again": the
 * hooks ask the store with `maxAgeMs: Infinity` (any recorded outcome will do). A SharedWorker
 * tab's ask carrying it was dropped by the worker as a malformed message (its maxAgeMs was not a
 * finite number): the query stayed pending for ever and no request left. Real ports and stores.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, useSharedFetch } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const API = "http://127.0.0.1:9/api/max-age-infinity";
const MAIN = "http://127.0.0.1:9/app/main.ts";
const wide = { timeout: 5000 };

function counting() {
  const host = new Host();
  let n = 0;
  host.auto = (call) =>
    call.url.endsWith(".ts") ? { status: 200, text: `export const v = ${++n};\n` } : { status: 200, body: { v: ++n } };
  return host;
}

/** Messages the worker dropped as malformed, over every worker of the browser. */
const dropped = (b: ReturnType<typeof browser>) => [...b.workers.values()].reduce((sum, w) => sum + w.malformed, 0);

describe("an ask with maxAgeMs: Infinity reaches the worker (any recorded outcome meets it)", () => {
  it("ensure: nothing recorded sends one request; once recorded, it answers with it and sends none", async () => {
    const host = counting();
    const b = browser(host);
    const t = b.tab();
    await expect(t.ensure({ url: API }, { maxAgeMs: Infinity })).resolves.toMatchObject({ status: "success", data: { v: 1 } });
    await expect(t.ensure({ url: API }, { maxAgeMs: Infinity })).resolves.toMatchObject({ data: { v: 1 } });
    expect(host.calls).toHaveLength(1);
    expect(dropped(b)).toBe(0);
  });

  it("ensureProgram: resolved once, then answered as recorded", async () => {
    const host = counting();
    const b = browser(host);
    const t = b.tab();
    const first = await t.ensureProgram({ url: MAIN }, { maxAgeMs: Infinity });
    expect(first.data!.files[0]!.contents).toBe("export const v = 1;\n");
    await t.ensureProgram({ url: MAIN }, { maxAgeMs: Infinity });
    expect(host.calls).toHaveLength(1);
    expect(dropped(b)).toBe(0);
  });

  for (const staleTime of [Infinity, "static"] as const) {
    it(`useSharedFetch with staleTime: ${String(staleTime)} shows the data in two tabs, one request`, async () => {
      const host = counting();
      const b = browser(host);
      function Pane({ id }: { id: string }) {
        const q = useSharedFetch<{ v: number }>(API, { staleTime });
        return <span data-testid={id}>{`${q.status}/${q.data?.v ?? "-"}`}</span>;
      }
      for (const id of ["a", "b"])
        render(
          <QueryClientProvider client={new QueryClient()}>
            <SharedFetchProvider store={b.tab()}>
              <Pane id={id} />
            </SharedFetchProvider>
          </QueryClientProvider>,
        );
      await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("success/1"), wide);
      await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("success/1"), wide);
      expect(host.calls).toHaveLength(1);
      expect(dropped(b)).toBe(0);
    });
  }
});
