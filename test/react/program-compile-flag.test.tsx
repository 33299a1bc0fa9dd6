// @vitest-environment jsdom
/**
 * Bad input gets a clear error naming the value: useProgram's and sharedProgramOptions' `compile`
 * is a boolean, as ensureProgram's is. One of another type (a JavaScript caller's `"false"`, a
 * config's `1`) is the query's input error, naming it, with no request, never taken for true
 * (`"false"` compiled the program, under the key of `compile: true`) or for false.
 */
import { QueryClient } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchError, SharedFetchInputError, sharedProgramOptions, useProgram } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

const MAIN = "https://modules.example.test/app/main.tsx";

afterEach(cleanup);

it('useProgram(url, { compile: "false" }) is an input error naming the flag; no request is sent', async () => {
  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, text: "export const x = <b />;\n" });
  const store = c.stores[0]!;
  const seen: { status: string; error: unknown; compiled: boolean }[] = [];
  function Pane() {
    const q = useProgram(MAIN, { compile: "false" as never, retry: false });
    seen.push({ status: q.status, error: q.error, compiled: q.data?.compiled !== undefined });
    return <span data-testid="status">{q.status}</span>;
  }
  render(app(store, <Pane />));
  await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("error"));
  const error = seen.at(-1)!.error as SharedFetchError;
  expect(error).toBeInstanceOf(SharedFetchError);
  expect(error.cause).toBeInstanceOf(SharedFetchInputError);
  expect(error.message).toBe('shared-fetch: program compile flag must be a boolean, got "false"');
  expect(seen.some((s) => s.compiled)).toBe(false);
  expect(c.host.calls).toHaveLength(0);
});

it("sharedProgramOptions(store, url, { compile: 1 }) through fetchQuery rejects with that error; compile: false is the plain program's key", async () => {
  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, text: "export const x = 1;\n" });
  const store = c.stores[0]!;
  const client = new QueryClient();
  const error = await client.fetchQuery(sharedProgramOptions(store, MAIN, { compile: 1 as never })).catch((e: unknown) => e);
  expect((error as Error).message).toBe("shared-fetch: program compile flag must be a boolean, got 1");
  expect(c.host.calls).toHaveLength(0);
  expect(sharedProgramOptions(store, MAIN, { compile: false }).queryKey).toEqual(sharedProgramOptions(store, MAIN).queryKey);
  expect(sharedProgramOptions(store, MAIN, { compile: true }).queryKey).not.toEqual(sharedProgramOptions(store, MAIN).queryKey);
});
