// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query": `refetchOnMount: "always"` fetches on mount whatever the
 * data's age, a polled query's too (TanStack's mount does not look at refetchInterval), however
 * young the result another replica recorded; K tabs mounting at once still send one request, and
 * the poll ticks that follow stay one request per interval for all tabs.
 */
import { focusManager, QueryClient } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras, type UseSharedFetchOptions } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, until, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
});

const POLLED: UseSharedFetchOptions<{ n: number }> = { refetchInterval: 60_000, refetchOnMount: "always" };

function Pane({ name, options }: { name: string; options: UseSharedFetchOptions<{ n: number }> }) {
  const { data } = useSharedFetch<{ n: number }>(URL_A, options);
  return <span data-testid={name}>{data ? data.n : "-"}</span>;
}

const pane = (store: SharedFetchStoreWithExtras, name: string, options = POLLED) =>
  app(store, <Pane name={name} options={options} />, new QueryClient());
const shown = (name: string) => screen.getByTestId(name).textContent;

/** Three replicas answering { n: call number }, the first having recorded n = 1 a second ago (call after useFakeClock). */
async function recordedASecondAgo() {
  const c = cluster(3, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  await until(c.stores[0]!.ensure({ url: URL_A }));
  await advance(1_000);
  return c;
}

describe('a polled query with refetchOnMount: "always" (README, Coming from TanStack Query)', () => {
  it("a tab mounting fetches although the recorded result is younger than its interval; without it, it does not", async () => {
    useFakeClock();
    const c = await recordedASecondAgo();
    render(pane(c.stores[1]!, "polled", { refetchInterval: 60_000 }));
    await advance(100);
    expect(shown("polled")).toBe("1");
    expect(c.host.calls).toHaveLength(1);
    render(pane(c.stores[2]!, "always"));
    await advance(100);
    expect(shown("always")).toBe("2");
    expect(c.host.calls).toHaveLength(2);
  });

  it("two tabs mounting at once send one request, and each interval after it one more for both", async () => {
    useFakeClock();
    const c = await recordedASecondAgo();
    render(
      <>
        {pane(c.stores[1]!, "a")}
        {pane(c.stores[2]!, "b")}
      </>,
    );
    await advance(100);
    expect([shown("a"), shown("b")]).toEqual(["2", "2"]);
    expect(c.host.calls).toHaveLength(2);
    await advance(60_000);
    expect([shown("a"), shown("b")]).toEqual(["3", "3"]);
    expect(c.host.calls).toHaveLength(3);
    await advance(60_000);
    expect(c.host.calls).toHaveLength(4);
  });
});
