// @vitest-environment jsdom
/**
 * README (sharedMutationFn's `retry`, run inside the claim): a retry waits while `onlineManager`
 * says offline, as useMutation's own retryer pauses (networkMode "online", its default): nothing
 * is sent meanwhile, the retries are not used up, and it resumes once online; beside a plain
 * useMutation with the same `retry` against a real HTTP server on 127.0.0.1. With networkMode
 * "always" neither waits. Before, the store went on retrying offline and the call ended in an
 * error while the browser was offline. By design the shared call does not show `isPaused` (a
 * persister saves paused calls for other tabs, which would send this one again).
 */
import { onlineManager, useMutation } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { sharedMutationFn } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySideServerForFile, twoTabs } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => void onlineManager.setOnline(true));

/** The browser goes offline as the first failure's retry is due. */
const offlineAtFirstRetry = (n: number) => {
  if (n === 0) onlineManager.setOnline(false);
  return 5;
};

function Pane({ id, fn, options, logs }: { id: string; fn: () => Promise<unknown>; options: object; logs: Record<string, string[]> }) {
  const m = useMutation({ mutationFn: fn, ...options });
  const shown = `${m.status} ${m.failureCount}${m.isPaused ? " paused" : ""}`;
  const log = (logs[id] ??= []);
  if (log.at(-1) !== shown) log.push(shown);
  return <button onClick={() => m.mutate()}>{`post ${id}`}</button>;
}

for (const networkMode of ["online", "always"] as const)
  it(`networkMode "${networkMode}": offline after the first failure, the retry ${networkMode === "online" ? "waits, paused, until online" : "goes on"}, as useMutation's own`, async () => {
    const [a] = twoTabs();
    server.failing = true;
    const path = `/items-${networkMode}`;
    const sent = (side: string) => server.seen.filter((p) => p === `${side}${path}`).length;
    const logs: Record<string, string[]> = {};
    const retry = () => ({ retry: 2, retryDelay: offlineAtFirstRetry });
    const shared = sharedMutationFn(a, () => ({ url: `${server.base}/s${path}`, method: "POST", body: "{}" }), retry());
    const plain = async () => {
      const res = await fetch(`${server.base}/p${path}`, { method: "POST", body: "{}" });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return res.json();
    };
    render(
      app(
        a,
        <>
          <Pane id="shared" fn={shared} options={{ networkMode }} logs={logs} />
          <Pane id="plain" fn={plain} options={{ networkMode, ...retry() }} logs={logs} />
        </>,
      ),
    );
    await act(() => fireEvent.click(screen.getByText("post shared")));
    await act(() => fireEvent.click(screen.getByText("post plain")));
    if (networkMode === "online") {
      await waitFor(() => expect(logs.plain!.at(-1)).toBe("pending 1 paused"));
      await pause(50);
      expect(logs.shared!.at(-1)).toBe("pending 1");
      expect(logs.shared!.filter((l) => l.startsWith("error"))).toEqual([]);
      expect([sent("/s"), sent("/p")]).toEqual([1, 1]);
      act(() => onlineManager.setOnline(true));
    }
    await waitFor(() => expect([logs.shared!.at(-1), logs.plain!.at(-1)]).toEqual(["error 3", "error 3"]));
    // Each counted every attempt, and neither ended before its last one (renders batched aside).
    expect(logs.shared!.filter((l) => l.startsWith("error"))).toEqual(["error 3"]);
    expect(logs.plain!.filter((l) => l.startsWith("error"))).toEqual(["error 3"]);
    expect([sent("/s"), sent("/p")]).toEqual([3, 3]);
  });
