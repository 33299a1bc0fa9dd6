// @vitest-environment jsdom
/**
 * `useProgram`'s `refetch()` is an explicit refetch, as `useSharedFetch`'s is: it does not join a
 * re-resolution another tab already sent, which may have read the modules before a deploy (as
 * TanStack cancels a fetch in flight and starts another). Tab A re-resolves and its request
 * reaches the host before the deploy; tab B's user presses refetch after it: B sends its own
 * request (3 in all) and shows the new code, where it joined A's and kept the old one.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchProvider, useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, type Cluster } from "../harness/replicas.ts";

const ONE = "https://modules.example.test/one/main.ts";
// Generous: jsdom renders on a loaded 2-core machine (no timing is asserted here).
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });

afterEach(cleanup);

function serve(c: Cluster, code: () => string): void {
  c.host.auto = (call) => {
    call.respondRaw(200, code(), { "content-type": "text/javascript" });
    return undefined;
  };
}

function Pane({ name }: { name: string }) {
  const { data, refetch } = useProgram(ONE);
  return (
    <div>
      <span data-testid={`${name}-code`}>{data ? data.files[0]!.contents : "none"}</span>
      <button onClick={() => void refetch()}>{`${name}-refetch`}</button>
    </div>
  );
}

const tab = (store: SharedFetchStoreWithExtras, name: string) => (
  <QueryClientProvider client={new QueryClient()}>
    <SharedFetchProvider store={store}>
      <Pane name={name} />
    </SharedFetchProvider>
  </QueryClientProvider>
);

it(
  "refetch() in tab B sends its own resolution past tab A's sent before a deploy, and shows the new code",
  { timeout: 30_000 },
  async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    let code = "export const v = 1;\n";
    serve(c, () => code);
    render(tab(a!, "a"));
    render(tab(b!, "b"));
    await eventually(() => expect(screen.getByTestId("b-code").textContent).toContain("v = 1"));
    expect(c.host.calls).toHaveLength(1);
    // A re-resolves; the host holds its request, which it read before the deploy.
    c.host.auto = undefined;
    await act(async () => void a!.refetchProgram!({ url: ONE }).catch(() => {}));
    await eventually(() => expect(c.host.calls).toHaveLength(2));
    code = "export const v = 2;\n";
    serve(c, () => code);
    await act(async () => screen.getByText("b-refetch").click());
    await act(async () => c.host.calls[1]!.respondRaw(200, "export const v = 1;\n", { "content-type": "text/javascript" }));
    await eventually(() => expect(screen.getByTestId("b-code").textContent).toContain("v = 2"));
    expect(c.host.calls).toHaveLength(3);
  },
);
