// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query" (The same): "One disabled while its fetch runs keeps that
 * fetch, as TanStack does (it cancels nothing on `enabled: false`): a tab whose query function
 * waits on another replica's request keeps waiting, and its wait keeps that request going, until
 * the answer or unmount." Tab B's pane waits on tab A's request, then is disabled; A's route
 * changes away (its own ask ends). B's wait still counts (invariant 11 with invariant 1's one
 * request): the request goes on and answers B; once B unmounts nobody waits and it is aborted.
 */
import { useQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { bJoinedA } from "../harness/joined-tabs.tsx";
import { URL_A } from "../harness/replicas.ts";
import { pause, text } from "../harness/two-panes.tsx";

afterEach(cleanup);

function Pane({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const [enabled, setEnabled] = useState(true);
  const q = useQuery({ ...sharedQueryOptions<{ n: number }>(store, URL_A), enabled });
  return (
    <>
      <span data-testid={name}>{q.data ? String(q.data.n) : `${q.status}/${q.fetchStatus}`}</span>
      <button onClick={() => setEnabled(false)}>disable {name}</button>
    </>
  );
}

/** A route with the pane, and a link to a route without it. */
function Routes({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const [shown, setShown] = useState(true);
  return (
    <>
      {shown ? <Pane store={store} name={name} /> : <span data-testid={name}>settings</span>}
      <button onClick={() => setShown(false)}>leave {name}</button>
    </>
  );
}

/** bJoinedA, then B's pane disabled and A's route left. */
async function bJoinedAThenDisabled() {
  const { c, waitsOfB } = await bJoinedA((store, name) => <Routes store={store} name={name} />);
  fireEvent.click(screen.getByText("disable b"));
  // TanStack cancels nothing on enabled: false: B's query function still runs.
  expect(text("b")).toBe("pending/fetching");
  fireEvent.click(screen.getByText("leave a"));
  await pause(100);
  return { c, waitsOfB };
}

describe("README: a query disabled while its fetch waits on another replica's request keeps that fetch", () => {
  it("B, disabled, keeps waiting and keeps A's request going after A's route changes away: one request, it answers B", async () => {
    const { c, waitsOfB } = await bJoinedAThenDisabled();
    expect(waitsOfB()).toHaveLength(1);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([false]);
    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await waitFor(() => expect(text("b")).toBe("1"));
    expect(c.host.calls).toHaveLength(1);
  });

  it("until unmount: B's pane goes too, nobody waits, the request is aborted and sent by nobody", async () => {
    const { c } = await bJoinedAThenDisabled();
    expect(c.host.calls[0]!.aborted).toBe(false);
    fireEvent.click(screen.getByText("leave b"));
    await waitFor(() => expect(c.host.calls[0]!.aborted).toBe(true));
    await pause(100);
    expect(c.host.calls).toHaveLength(1);
  });
});
