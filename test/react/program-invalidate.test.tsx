// @vitest-environment jsdom
/**
 * The devtools' invalidate of a program reaches a tab that never showed it: after tab A's panel
 * invalidates the program key, tab B's first `useProgram` mount (a fresh QueryClient, the recorded
 * program shown at once as initial data) re-resolves and ends with what the host serves now,
 * instead of keeping the invalidated program with no request.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { SharedFetchProvider, useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";

const ONE = "https://modules.example.test/one/main.ts";
// Generous: jsdom renders on a loaded 2-core machine (no timing is asserted here).
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });

afterEach(cleanup);

function Pane({ name }: { name: string }) {
  const { data, status } = useProgram(ONE);
  return (
    <div>
      <span data-testid={`${name}-status`}>{status}</span>
      <span data-testid={`${name}-code`}>{data ? data.files[0]!.contents : "none"}</span>
    </div>
  );
}

function tab(store: SharedFetchStoreWithExtras, name: string) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Pane name={name} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

it("devtools invalidate of a program: another tab's first mount re-resolves it and shows the new code", { timeout: 20_000 }, async () => {
  const c = cluster(2, { settleMs: 0 });
  const [a, b] = c.stores;
  const files: Record<string, string> = { "/one/main.ts": "export const v = 1;\n" };
  c.host.auto = (call) => {
    const body = files[new URL(call.url).pathname];
    if (body === undefined) call.respondRaw(404, "not found");
    else call.respondRaw(200, body, { "content-type": "text/javascript" });
    return undefined;
  };
  const first = render(tab(a!, "a"));
  await eventually(() => expect(screen.getByTestId("a-code").textContent).toContain("v = 1"));
  first.unmount();
  expect(c.host.calls).toHaveLength(1);

  files["/one/main.ts"] = "export const v = 2;\n";
  expect(invalidateKey(a!, a!.programKeyOf({ url: ONE }))).toMatchObject({ ok: true, doc: true });
  render(tab(b!, "b"));
  await eventually(() => expect(screen.getByTestId("b-code").textContent).toContain("v = 2"));
  expect(c.host.calls).toHaveLength(2);
  c.destroy();
});
