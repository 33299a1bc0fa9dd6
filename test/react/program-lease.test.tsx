// @vitest-environment jsdom
/**
 * DESIGN: the lease bound is "overridable per call", for programs too (ensureProgram's leaseMs).
 * useProgram and sharedProgramOptions take `leaseMs` as useSharedFetch does: the claim their
 * resolution makes carries it (other replicas judge its silence by it); a bad one is the query's
 * input error naming it. Before, the option was dropped: the claim carried the store's
 * programLeaseMs whatever was passed.
 */
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { useProgram, type UseProgramOptions } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

const MAIN = "https://modules.example.test/app/main.ts";

afterEach(cleanup);

function mount(options: UseProgramOptions) {
  const c = cluster(1, { settleMs: 0 });
  const store = c.stores[0]!;
  const errors: unknown[] = [];
  function Pane() {
    const q = useProgram(MAIN, options);
    errors.push(q.error);
    return <span data-testid="status">{q.status}</span>;
  }
  render(app(store, <Pane />));
  return { c, store, errors };
}

it("useProgram(url, { leaseMs: 60_000 }): the resolution's claim carries that lease, not the store's programLeaseMs", async () => {
  const { c, store } = mount({ leaseMs: 60_000 });
  // The host never answers: the claim stands while the test reads it.
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  const claims = store.claims().map(([, claim]) => claim);
  expect(claims).toHaveLength(1);
  expect(claims[0]).toMatchObject({ kind: "program", leaseMs: 60_000 });
});

it("useProgram(url, { leaseMs: -1 }): the query's error names leaseMs and the value; nothing is claimed or sent", async () => {
  const { c, store, errors } = mount({ leaseMs: -1, retry: false });
  await waitFor(() => expect(screen.getByTestId("status").textContent).toBe("error"));
  expect((errors.at(-1) as Error).message).toMatch(/leaseMs .*-1/);
  expect(store.claims()).toHaveLength(0);
  expect(c.host.calls).toHaveLength(0);
});
