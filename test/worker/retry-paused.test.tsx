// @vitest-environment jsdom
/**
 * A tab of the SharedWorker replica, offline mid-request (networkMode "online", TanStack's default),
 * side by side with a plain query function in the same tab: the worker's retry waits for its
 * navigator's online event, and the tab's query says so as TanStack's retryer does
 * (`fetchStatus: "paused"`, then "fetching" again), whether its retry options are data (which the
 * worker runs) or functions (which the worker asks the tab about): no error, and the data once
 * back online. Real ports, docs and stores; FakeLocks; the sim's host.
 */
import { onlineManager, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedQueryOptions } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/retry-paused";
const PLAIN = `${API}/plain`;
type Item = { n: number };

/** The browser goes offline or online: its navigator and events (the worker's view), and TanStack's onlineManager. */
function setOnline(online: boolean): void {
  Object.defineProperty(window.navigator, "onLine", { configurable: true, get: () => online });
  window.dispatchEvent(new Event(online ? "online" : "offline"));
  onlineManager.setOnline(online);
}

afterEach(() => {
  cleanup();
  setOnline(true);
});

const policies = {
  "data (the worker runs them)": { retry: 3, retryDelay: 5 },
  "functions (the worker asks the tab)": { retry: (failureCount: number) => failureCount < 3, retryDelay: () => 5 },
};

describe("a SharedWorker tab's retry while offline shows as paused, as TanStack's own retryer does", () => {
  for (const [what, retries] of Object.entries(policies)) {
    it(`retry options as ${what}: paused while offline, never an error, the data once online`, async () => {
      const host = new Host();
      let failing = true;
      host.auto = () => undefined;
      const stop = host.onCall((call) => {
        if (call.settled) return;
        if (failing) queueMicrotask(() => call.fail(new TypeError("Failed to fetch")));
        else queueMicrotask(() => call.respond(200, { n: 1 }));
      });
      const store = browser(host).tab();
      const client = new QueryClient({ defaultOptions: { queries: retries } });
      const states: Record<string, string[]> = { plain: [], shared: [] };
      function Probe({ name, options }: { name: string; options: object }) {
        const q = useQuery(options as never) as { data?: Item; fetchStatus: string; status: string };
        states[name]!.push(`${q.status}/${q.fetchStatus}`);
        return <span data-testid={name}>{q.data ? String(q.data.n) : q.status}</span>;
      }
      const plainFn = async ({ signal }: { signal: AbortSignal }) => {
        const response = await host.fetch(PLAIN, { signal });
        return (await response.json()) as Item;
      };
      const shared = sharedQueryOptions<Item>(store, API);
      render(
        <QueryClientProvider client={client}>
          <SharedFetchProvider store={store}>
            <Probe name="plain" options={{ queryKey: ["plain"], queryFn: plainFn }} />
            <Probe name="shared" options={shared} />
          </SharedFetchProvider>
        </QueryClientProvider>,
      );
      // The first attempts are under way when the connection drops.
      act(() => setOnline(false));
      await waitFor(() => expect(client.getQueryState(["plain"])?.fetchStatus).toBe("paused"));
      // Past the worker's bound on a tab's answer (RETRY_ASK_MS, 2 s): a function's answer must
      // not wait for the connection, or the worker takes its silence for "no retry".
      await act(() => new Promise((r) => setTimeout(r, 2500)));
      expect(client.getQueryState(shared.queryKey)?.fetchStatus).toBe("paused");
      expect(states.shared!.at(-1)).toBe("pending/paused");
      failing = false;
      await act(async () => setOnline(true));
      await waitFor(() => expect([screen.getByTestId("plain").textContent, screen.getByTestId("shared").textContent]).toEqual(["1", "1"]));
      expect(states.shared!.filter((s) => s.startsWith("error"))).toEqual([]);
      expect(states.plain!.filter((s) => s.startsWith("error"))).toEqual([]);
      expect(states.shared!.at(-1)).toBe("success/idle");
      stop();
    });
  }
});
