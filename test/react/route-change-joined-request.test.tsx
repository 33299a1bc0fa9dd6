// @vitest-environment jsdom
/**
 * Invariant 11 with invariant 1's "one request", in React: tab A's route changes away from the pane
 * whose request it sent (TanStack aborts a query's fetch when its last observer goes) while tab B,
 * of the same browser, waits on that request. B is present (its store has presence) and says it
 * waits: A's request goes on and answers B, one request, where before A aborted it and B, woken by
 * the key's Web Lock, sent it again. Once B stops waiting too, it is aborted (README, "What differs").
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
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, URL_A));
  return <span data-testid={name}>{q.data ? String(q.data.n) : q.status}</span>;
}

/** A route with the pane, and a link to a route without it. */
function Routes({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const [route, setRoute] = useState("items");
  return (
    <>
      {route === "items" ? <Pane store={store} name={name} /> : <span data-testid={name}>settings</span>}
      <button onClick={() => setRoute("settings")}>settings in {name}</button>
    </>
  );
}

const bJoinedAOnRoutes = () => bJoinedA((store, name) => <Routes store={store} name={name} />);

describe("a route change in the claimant's tab while another tab waits on its request (invariant 11, invariant 1)", () => {
  it("A leaves the route: its request goes on and answers B; one request, none aborted", async () => {
    const { c } = await bJoinedAOnRoutes();
    fireEvent.click(screen.getByText("settings in a"));
    expect(text("a")).toBe("settings");
    await pause(100);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([false]);
    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await waitFor(() => expect(text("b")).toBe("1"));
    expect(c.host.calls).toHaveLength(1);
  });

  it("A leaves the route, then B does too: nobody waits, the request is aborted and sent by nobody", async () => {
    const { c } = await bJoinedAOnRoutes();
    fireEvent.click(screen.getByText("settings in a"));
    await pause(100);
    expect(c.host.calls[0]!.aborted).toBe(false);
    fireEvent.click(screen.getByText("settings in b"));
    await waitFor(() => expect(c.host.calls[0]!.aborted).toBe(true));
    await pause(100);
    expect(c.host.calls).toHaveLength(1);
  });
});
