// @vitest-environment jsdom
/**
 * README, "Clock skew between devices": a result from a device whose clock runs ahead is dated in
 * this tab's future, so when its request was sent is unknown here (no later than its arrival). It
 * does not undo what the app did after that request may have left: an optimistic update
 * (cancelQueries + setQueryData) and an invalidation stay, as for a result sent before them
 * (it replaced the optimistic data with the list read before the mutation, and made the
 * invalidated query fresh, whenever the device's clock ran ahead by more than the request's head start).
 * One claimed after the set (a revision past every one recorded or claimed then) was sent after it,
 * whatever its date: it replaces the set data, as a result from a device on time does.
 */
import { focusManager } from "@tanstack/react-query";
import { act, cleanup, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pause, PREFIX, text, twoPanesShowingOne } from "../harness/two-panes.tsx";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  focusManager.setFocused(undefined);
});

/** Devices A and B show { n: 1 }, nothing in flight. */
async function twoDevices() {
  const { c, clientA, clientB } = await twoPanesShowingOne();
  const queryA = clientA.getQueryCache().findAll({ queryKey: PREFIX })[0]!;
  /** B, its clock 10 s ahead of A's, sends a refetch that is left in flight. */
  const refetchAhead = async () => {
    const sent = c.host.calls.length + 1;
    // Only Date moves (B's wall clock, as it dates its request); timers stay real.
    vi.setSystemTime(Date.now() + 10_000);
    void clientB.refetchQueries({ queryKey: PREFIX });
    await waitFor(() => expect(c.host.calls).toHaveLength(sent));
    vi.useRealTimers();
    await pause(5);
  };
  return { c, clientA, queryA, refetchAhead };
}

async function refetchFromDeviceAhead() {
  const devices = await twoDevices();
  await devices.refetchAhead();
  return devices;
}

describe("clock skew: a result from a device whose clock runs ahead does not undo the app's set or invalidation", () => {
  it("A's optimistic update stays when B's answer, sent before it, arrives; A's invalidation then shows the server's data", async () => {
    const { c, clientA, queryA } = await refetchFromDeviceAhead();
    await act(async () => {
      await clientA.cancelQueries({ queryKey: PREFIX });
      clientA.setQueryData(queryA.queryKey, { n: 999 });
    });
    c.host.calls[1]!.respond(200, { n: 1 }); // read before A's mutation
    await waitFor(() => expect(text("b")).toBe("1"));
    await pause(30);
    expect(text("a")).toBe("999");
    c.host.auto = () => ({ status: 200, body: { n: 2 } });
    await act(() => clientA.invalidateQueries({ queryKey: PREFIX }));
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
  });

  it("A's invalidation (refetchType 'none') stays when B's answer arrives: A's next focus refetches", async () => {
    const { c, clientA, queryA } = await refetchFromDeviceAhead();
    await act(() => clientA.invalidateQueries({ queryKey: PREFIX, refetchType: "none" }));
    c.host.calls[1]!.respond(200, { n: 2 });
    await waitFor(() => expect(text("a")).toBe("2"));
    await pause(20);
    expect(queryA.isStale()).toBe(true);
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    await act(async () => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
    await waitFor(() => expect(c.host.calls).toHaveLength(3));
  });
  it("A's set gives way to B's result claimed after it (a later revision than any recorded or claimed at the set)", async () => {
    const { c, clientA, queryA, refetchAhead } = await twoDevices();
    // A's mutation answered with the item: A sets it, nothing in flight anywhere.
    act(() => void clientA.setQueryData(queryA.queryKey, { n: 5 }));
    await waitFor(() => expect(text("a")).toBe("5"));
    await refetchAhead(); // sent after A's set, dated 10 s in A's future
    c.host.calls[1]!.respond(200, { n: 6 });
    await waitFor(() => expect(text("b")).toBe("6"));
    // It was refused for as long as A's query went unfetched (staleTime): the set stuck.
    await waitFor(() => expect(text("a")).toBe("6"));
  });
});
