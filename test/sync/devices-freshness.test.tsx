// @vitest-environment jsdom
/**
 * Freshness across devices, as a TanStack Query user judges it: two or three devices (each its own
 * doc, connectPeers to a y-websocket server on 127.0.0.1, store and QueryClient) showing
 * `useQuery(sharedQueryOptions(…))` of one real HTTP host on 127.0.0.1 that counts requests. What
 * tabs of one browser get (test/react), devices get too: one request for all (invalidation after a
 * mutation, polls, focus, reconnect, staleness), and fresh data shown with none.
 */
import { focusManager, onlineManager } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { devicesForFile, fetching, press, settledOn, shown, type Device, type ListOptions } from "../harness/devices.tsx";

afterEach(() => void vi.restoreAllMocks());

const { host, room, device, devices, List, ListWithAdd, Routed, lists, showAWithBAway } = devicesForFile();

/** Device A alone on a new room, its list shown and answered; `bootB()` then starts device B on the room, its list shown too. */
async function aAloneThenB(options: ListOptions) {
  const r = room();
  const a = await device("a", r);
  const { rerender } = render(lists([a], options));
  await waitFor(() => expect(shown("a")).toBe("empty"));
  await waitFor(() => expect(fetching(a)).toBe("idle"));
  const bootB = async () => {
    const b = await device("b", r);
    rerender(lists([a, b], options));
    return b;
  };
  return { a, bootB };
}

it("invalidateQueries after a mutation on device A: one GET for every device; B, active, shows the new list with no request of its own", async () => {
  const [a, b, c] = await devices(3);
  render(
    <>
      {a!.wrap(<ListWithAdd name="a" />)}
      {b!.wrap(<List name="b" />)}
      {c!.wrap(<List name="c" />)}
    </>,
  );
  await settledOn([a!, b!, c!], ["empty", "empty", "empty"]);
  expect(host.gets()).toBe(1);

  await press("add a");
  await settledOn([a!, b!, c!], ["x", "x", "x"]);
  expect(host.seen).toEqual(["GET", "POST", "GET"]);
}, 20_000);

it("invalidateQueries on device A while B's list is unmounted: B mounted later shows the new list, fresh by its staleTime, with no request", async () => {
  const [a, b] = await devices(2);
  const options = { staleTime: 60_000 };
  render(
    <>
      {a!.wrap(<ListWithAdd name="a" options={options} />)}
      {b!.wrap(<Routed d={b!} options={options} />)}
    </>,
  );
  await settledOn([a!, b!], ["empty", "empty"]);
  expect(host.gets()).toBe(1);

  await press("toggle b");
  await press("add a");
  await waitFor(() => expect(shown("a")).toBe("x"));
  await waitFor(() => expect(fetching(a!)).toBe("idle"));
  expect(host.seen).toEqual(["GET", "POST", "GET"]);

  await press("toggle b");
  await waitFor(() => expect(shown("b")).toBe("x"));
  await waitFor(() => expect(fetching(b!)).toBe("idle"));
  expect(host.seen).toEqual(["GET", "POST", "GET"]);
}, 20_000);

it("refetchInterval on two devices: one request per interval for the key across devices, not one per device", async () => {
  const [a, b] = await devices(2);
  const polls = { a: 0, b: 0 };
  for (const d of [a!, b!])
    d.client.getQueryCache().subscribe((e) => {
      if (e.type === "updated" && e.action.type === "fetch") polls[d.name as "a" | "b"]++;
    });
  render(lists([a!, b!], { refetchInterval: 300 }));
  await waitFor(() => expect(Math.min(polls.a, polls.b)).toBeGreaterThanOrEqual(6), { timeout: 10_000 });
  // Every device ticked 6 times or more; the host saw about one request per tick, not two.
  expect(host.gets()).toBeLessThanOrEqual(Math.max(polls.a, polls.b) + 1);
}, 20_000);

it("staleTime across devices: B mounting while A's result is fresh shows it with no request; once stale, a focus on both is one request", async () => {
  const [a, b] = await devices(2);
  // Fresh for a minute, then stale by moving Date.now on past it: with a staleTime short enough to
  // wait out, B mounted after it on a loaded machine and rightly sent a request.
  const options = { staleTime: 60_000, refetchOnWindowFocus: true };
  await showAWithBAway(a!, b!, options);
  await waitFor(() => expect(shown("a")).toBe("empty"));
  await waitFor(() => expect(fetching(a!)).toBe("idle"));
  await press("toggle b");
  await waitFor(() => expect(shown("b")).toBe("empty"));
  expect(fetching(b!)).toBe("idle");
  expect(host.gets()).toBe(1);

  const now = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => now() + 60_100);
  // By the clock (an observer's isStale waits for a timer of the staleTime's real length).
  const stale = (d: Device) => d.client.getQueryCache().getAll()[0]!.isStaleByTime(options.staleTime);
  expect([stale(a!), stale(b!)]).toEqual([true, true]);
  act(() => (focusManager.setFocused(false), focusManager.setFocused(true)));
  await waitFor(() => expect(host.gets()).toBe(2));
  await waitFor(() => expect([fetching(a!), fetching(b!)]).toEqual(["idle", "idle"]));
  expect(host.gets()).toBe(2);
  act(() => focusManager.setFocused(undefined));
}, 20_000);

it("refetchOnWindowFocus and refetchOnReconnect on two devices at once: one request each", async () => {
  const [a, b] = await devices(2);
  render(lists([a!, b!], { refetchOnWindowFocus: true }));
  await settledOn([a!, b!], ["empty", "empty"]);
  expect(host.gets()).toBe(1);

  act(() => (focusManager.setFocused(false), focusManager.setFocused(true)));
  await waitFor(() => expect(host.gets()).toBe(2));
  await waitFor(() => expect([fetching(a!), fetching(b!)]).toEqual(["idle", "idle"]));
  act(() => focusManager.setFocused(undefined));

  act(() => (onlineManager.setOnline(false), onlineManager.setOnline(true)));
  await waitFor(() => expect(host.gets()).toBe(3));
  await waitFor(() => expect([fetching(a!), fetching(b!)]).toEqual(["idle", "idle"]));
  expect(host.gets()).toBe(3);
}, 20_000);

it("a device that boots while another's result is fresh shows that result with no request (its first ask waits for the initial sync)", async () => {
  const { bootB } = await aAloneThenB({ staleTime: 60_000 });
  const b = await bootB();
  await waitFor(() => expect(shown("b")).toBe("empty"));
  await waitFor(() => expect(fetching(b)).toBe("idle"));
  expect(host.gets()).toBe(1);
}, 20_000);

it("three devices focused at once, five times over: one request each time", async () => {
  const all = await devices(3);
  render(lists(all, { refetchOnWindowFocus: true }));
  await settledOn(all, ["empty", "empty", "empty"]);
  for (let round = 2; round <= 6; round++) {
    act(() => (focusManager.setFocused(false), focusManager.setFocused(true)));
    await settledOn(all, [`${round}`, `${round}`, `${round}`], "-n");
    expect(host.gets()).toBe(round);
  }
  act(() => focusManager.setFocused(undefined));
}, 30_000);

it("invalidateQueries on device A while B's own refetch is in flight: A's request follows it, and both devices end on the data after the mutation", async () => {
  const [a, b] = await devices(2);
  render(
    <>
      {a!.wrap(<ListWithAdd name="a" />)}
      {b!.wrap(<List name="b" />)}
    </>,
  );
  await settledOn([a!, b!], ["empty", "empty"]);
  host.held = [];
  const held = host.held;
  const bRefetch = act(() => b!.client.refetchQueries());
  await waitFor(() => expect(held).toHaveLength(1));
  await press("add a");
  await waitFor(() => expect(host.seen).toEqual(["GET", "GET", "POST"]));
  held.shift()!();
  await bRefetch;
  await waitFor(() => expect(held).toHaveLength(1));
  held.shift()!();
  await settledOn([a!, b!], ["x", "x"]);
  expect(host.seen).toEqual(["GET", "GET", "POST", "GET"]);
}, 20_000);

it("a device that boots once another's result is stale by its staleTime sends one request (the initial sync's result is not new because it just arrived)", async () => {
  const { a, bootB } = await aAloneThenB({ staleTime: 400 });
  await waitFor(() => expect(a.client.getQueryCache().getAll()[0]!.isStale()).toBe(true));
  const b = await bootB();
  await waitFor(() => expect(shown("b-n")).toBe("2"));
  await waitFor(() => expect([fetching(a), fetching(b)]).toEqual(["idle", "idle"]));
  expect(host.gets()).toBe(2);
}, 20_000);

it("a device whose list was never shown mounts it once another's result is stale by its staleTime: one request", async () => {
  const [a, b] = await devices(2);
  const options = { staleTime: 400 };
  await showAWithBAway(a!, b!, options);
  await waitFor(() => expect(shown("a")).toBe("empty"));
  await waitFor(() => expect(fetching(a!)).toBe("idle"));
  await waitFor(() => expect(a!.client.getQueryCache().getAll()[0]!.isStale()).toBe(true));
  await press("toggle b");
  await waitFor(() => expect(shown("b-n")).toBe("2"));
  await waitFor(() => expect([fetching(a!), fetching(b!)]).toEqual(["idle", "idle"]));
  expect(host.gets()).toBe(2);
}, 20_000);
