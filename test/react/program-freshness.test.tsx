// @vitest-environment jsdom
/**
 * README, "What differs": only a poll judges a program by age (test/react/program-poll.test.tsx), so
 * a mount or a focus judged by staleTime is met by any recorded resolution and re-resolves nothing;
 * refetch(), invalidation and the "always" options do re-resolve.
 */
import { focusManager, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useProgram, type UseProgramOptions } from "../../src/index.ts";
import { cluster, type Cluster } from "../harness/replicas.ts";

const MAIN = "https://modules.example.test/app/main.js";

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
});

function serve(c: Cluster): void {
  let version = 0;
  c.host.auto = (call) => {
    call.respondRaw(200, `export const version = ${++version};\n`, { "content-type": "text/javascript" });
    return undefined;
  };
}

function mount(c: Cluster, options: UseProgramOptions, seen: string[]) {
  function Pane() {
    const contents = useProgram(MAIN, options).data?.files[0]?.contents;
    if (contents) seen.push(contents);
    return null;
  }
  const client = new QueryClient();
  render(
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={c.stores[0]!}>
        <Pane />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  return client;
}

describe("useProgram: only a poll judges a program by age (README, What differs)", () => {
  it("focuses and a second mount with staleTime: 0: answered from the record, no module requested again", async () => {
    const c = cluster(1, { settleMs: 0 });
    serve(c);
    const seen: string[] = [];
    mount(c, { staleTime: 0 }, seen);
    await waitFor(() => expect(seen.at(-1)).toContain("version = 1"));
    act(() => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
    mount(c, { staleTime: 0 }, seen);
    await act(() => new Promise((resolve) => setTimeout(resolve, 500)));
    expect(c.host.calls).toHaveLength(1);
    expect(seen.at(-1)).toContain("version = 1");
  });

  it('refetchOnWindowFocus: "always" and invalidateQueries re-resolve: the module is requested again and the new code shows', async () => {
    const c = cluster(1, { settleMs: 0 });
    serve(c);
    const seen: string[] = [];
    const client = mount(c, { refetchOnWindowFocus: "always" }, seen);
    await waitFor(() => expect(seen.at(-1)).toContain("version = 1"));
    act(() => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
    await waitFor(() => expect(seen.at(-1)).toContain("version = 2"), { timeout: 5_000 });
    await act(() => client.invalidateQueries({ queryKey: ["shared-fetch", "program"] }));
    await waitFor(() => expect(seen.at(-1)).toContain("version = 3"), { timeout: 5_000 });
    expect(c.host.calls).toHaveLength(3);
  });
});
