// @vitest-environment jsdom
/**
 * A request's field given among useProgram's options (`useProgram(url, { headers: { Authorization } })`)
 * is named in one warning that says a program's modules go out as plain GETs and what the options
 * take. TypeScript refuses it, but in JavaScript it was taken for a TanStack option and dropped:
 * the modules were requested without the header, and nothing said why. A warning, never a throw
 * into React: the program still resolves. Once per entry point and field for the page's life.
 */
import { useQuery } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { sharedProgramOptions, useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { MAIN, serveFlakyProgram } from "../harness/flaky-program.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

let warn: MockInstance<typeof console.warn>;
const warnings = () => warn.mock.calls.map((args) => String(args[0]));
const TAKES = "a program's modules are requested as plain GETs; it takes compile, leaseMs and useQuery's options";

beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  warn.mockRestore();
});

/** Renders `pane` over a fresh replica twice (a second render must not warn again); returns what it showed last. */
async function mount(pane: (store: SharedFetchStoreWithExtras) => { status: string }) {
  const c = cluster(1, { settleMs: 0 });
  serveFlakyProgram(c.host, 0);
  let last = "";
  const Pane = () => ((last = pane(c.stores[0]!).status), null);
  const view = render(app(c.stores[0]!, <Pane />));
  await vi.waitFor(() => expect(last).toBe("success"));
  view.rerender(app(c.stores[0]!, <Pane />));
  return { calls: c.host.calls.map((call) => new URL(call.url).pathname) };
}

describe("request fields among useProgram's options: a warning names the field and what the options take", () => {
  it("useProgram(url, { headers }): named once, across renders; the program still resolves, its modules asked once each", async () => {
    const { calls } = await mount(() => useProgram(MAIN, { headers: { Authorization: "Bearer t" } } as never));
    expect(warnings()).toEqual([`shared-fetch: useProgram ignores \`headers\`; ${TAKES}`]);
    expect(calls).toEqual(["/app/main.ts", "/app/helper.ts"]);
  });

  it("useProgram(url, { method, body }) names each; sharedProgramOptions names itself", async () => {
    await mount(() => useProgram(MAIN, { method: "POST", body: "{}" } as never));
    await mount((store) => useQuery(sharedProgramOptions(store, MAIN, { parse: "text" } as never)));
    expect(warnings()).toEqual([
      `shared-fetch: useProgram ignores \`method\`; ${TAKES}`,
      `shared-fetch: useProgram ignores \`body\`; ${TAKES}`,
      `shared-fetch: sharedProgramOptions ignores \`parse\`; ${TAKES}`,
    ]);
  });

  it("compile, leaseMs and TanStack's options (staleTime, select, meta) are no warning", async () => {
    await mount(() => useProgram(MAIN, { compile: true, leaseMs: 10_000, staleTime: 1000, select: (d) => d, meta: { url: "x" } }));
    expect(warnings()).toEqual([]);
  });
});
