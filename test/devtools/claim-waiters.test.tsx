// @vitest-environment jsdom
/**
 * Invariant 11 as the devtools show it: a claim's request goes on for the replicas that wait on it
 * (their presence says so), so the panel names them beside the claim and in the key's details, and
 * the replicas table says which keys each replica waits on. Read from a peer's presence, so a
 * malformed `waits` is skipped, never thrown (invariant 14).
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { SharedFetchDevtools } from "../../devtools/production.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

/** A's request for URL_A in flight (unanswered), B waiting on A's claim, A told so by presence. */
async function bWaitsOnA() {
  const presence = linkedPresence(2);
  const c = cluster(0, { settleMs: 0 });
  const a = c.join({ awareness: presence.all[0] });
  const b = c.join({ awareness: presence.all[1] });
  c.host.auto = () => undefined;
  const asked = new AbortController();
  a.ensure({ url: URL_A }, { signal: asked.signal }).catch(() => {});
  await vi.waitFor(() => expect(c.host.calls).toHaveLength(1));
  b.ensure({ url: URL_A }).catch(() => {});
  const bClient = presence.all[1]!.clientID;
  await vi.waitFor(() => expect(presence.all[0]!.getStates().get(bClient)?.sharedFetch?.waits).toBeDefined());
  return { c, a, b, asked, presence };
}

describe("devtools: who waits on a claim (invariant 11: the request goes on for its waiters)", () => {
  it("inspect() names the waiter on the claim, in the claimant and in the waiter itself", async () => {
    const { a, b } = await bWaitsOnA();
    for (const store of [a, b])
      expect(store.inspect().keys.map((k) => [k.claim?.replicaId, k.claim?.waiters])).toEqual([[a.replicaId, [b.replicaId]]]);
  });

  it("a malformed or higher-revision wait in a peer's presence names nobody and throws nothing (invariant 14)", async () => {
    const { a, presence } = await bWaitsOnA();
    const key = a.inspect().keys[0]!.key;
    for (const waits of [{ [key]: "1" }, [key], { [key]: 99 }, "x", null]) {
      presence.all[1]!.setLocalStateField("sharedFetch", { replicaId: "odd-peer", waits });
      await act(async () => {});
      expect(a.inspect().keys[0]!.claim!.waiters).toBeUndefined();
    }
  });

  it("the panel shows the waiter by the holder, in the key's details, and in the replicas table; gone once the waiter stops", async () => {
    const { a, b, presence } = await bWaitsOnA();
    const model = createDevtoolsModel(b, { awareness: presence.all[1]!, minNotifyIntervalMs: 0 });
    await act(async () => {});
    expect(model.getSnapshot().keys[0]!.claim!.waiters).toEqual([b.replicaId]);
    model.destroy();
    render(<SharedFetchDevtools store={a} awareness={presence.all[0]!} initialIsOpen />);
    const row = await screen.findByTestId("key-row");
    await waitFor(() => expect(within(row).getByTestId("waiters").textContent).toBe(`waited on by ${b.replicaId.slice(0, 11)}…`));
    fireEvent.click(within(row).getByRole("button", { name: /^Details of/ }));
    expect(screen.getByTestId("key-details").textContent).toContain(`its request goes on for the replicas waiting on it: ${b.replicaId}`);
    fireEvent.click(screen.getByRole("tab", { name: /^Replicas/ }));
    const waits = () => screen.getAllByTestId("replica-row").map((r) => within(r).getByTestId("waits").textContent);
    expect(waits()).toEqual(["—", "GET https://api.example.test/items"]);
    b.destroy();
    // B is still listed (presence left), waiting on nothing now.
    await waitFor(() => expect(waits()).toEqual(["—", "—"]), { timeout: 3000 });
  }, 30_000);
});
