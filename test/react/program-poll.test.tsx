// @vitest-environment jsdom
/**
 * `useProgram(url, { refetchInterval })` polls for a deploy as useQuery polls: every interval the
 * program is re-resolved (once for all tabs, as a polled fetch is) and the new code shows. A poll
 * was answered from the record, which had no age: the old code stayed, with no request, for ever.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchProvider, useProgram, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";

const MAIN = "https://modules.example.test/app/main.ts";
afterEach(cleanup);

function Pane({ id }: { id: string }) {
  const { data } = useProgram(MAIN, { refetchInterval: 200 });
  return <span data-testid={id}>{data?.files[0]?.contents ?? "none"}</span>;
}

const tab = (store: SharedFetchStoreWithExtras, id: string) => (
  <QueryClientProvider client={new QueryClient()}>
    <SharedFetchProvider store={store}>
      <Pane id={id} />
    </SharedFetchProvider>
  </QueryClientProvider>
);

it("a polled useProgram re-resolves each interval and shows the deployed code in every tab", async () => {
  const c = cluster(2, { settleMs: 0 });
  let version = 1;
  c.host.auto = (call) => {
    call.respondRaw(200, `export const v = ${version};`, { "content-type": "text/javascript" });
    return undefined;
  };
  render(
    <>
      {tab(c.stores[0]!, "a")}
      {tab(c.stores[1]!, "b")}
    </>,
  );
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("export const v = 1;"));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("export const v = 1;"));
  version = 2;
  // Wide: ten intervals of a loaded machine.
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("export const v = 2;"), { timeout: 5000 });
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("export const v = 2;"), { timeout: 5000 });
});
