// @vitest-environment jsdom
/**
 * Across devices (connectPeers to a y-websocket server on 127.0.0.1, a real HTTP host on
 * 127.0.0.1), a device cut off from the others and failed requests: back in sync, a device shows
 * the newest data, never an older one after it, with no request of its own; an error never
 * overwrites a result (invariant 7) and reaches only the devices whose query waited on it
 * (errors are per replica), as between tabs.
 */
import { focusManager } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { expect, it } from "vitest";
import { cutOff, devicesForFile, fetching, press, settledOn, shown, watchShown } from "../harness/devices.tsx";

const { host, devices, aAndGatedB, List, ListWithAdd, Routed, lists, showAWithBAway } = devicesForFile();

it("an error never overwrites a result across devices: A's refetch fails, B keeps its data and is not isError (its query did not fetch)", async () => {
  const [a, b] = await devices(2);
  render(lists([a!, b!]));
  await settledOn([a!, b!], ["empty", "empty"]);

  host.failing = true;
  await act(() => a!.client.refetchQueries());
  await waitFor(() => expect(shown("a")).toBe("empty error"));
  expect(shown("b")).toBe("empty");
  expect(fetching(b!)).toBe("idle");
}, 20_000);

it("an error across devices: A and B refetch at once and the one request fails: both keep their data and both are isError, as TanStack", async () => {
  const [a, b] = await devices(2);
  render(lists([a!, b!], { refetchOnWindowFocus: true }));
  await settledOn([a!, b!], ["empty", "empty"]);

  host.failing = true;
  act(() => (focusManager.setFocused(false), focusManager.setFocused(true)));
  await waitFor(() => expect([shown("a"), shown("b")]).toEqual(["empty error", "empty error"]));
  expect(host.gets()).toBe(2);
  act(() => focusManager.setFocused(undefined));

  // A's next result reaches B, which shows it and is no longer isError, with no request of its own.
  host.failing = false;
  await act(() => a!.client.refetchQueries());
  await waitFor(() => expect([shown("a-n"), shown("b-n")]).toEqual(["3", "3"]));
  expect([shown("a"), shown("b")]).toEqual(["empty", "empty"]);
  expect(host.gets()).toBe(3);
}, 20_000);

it("an error recorded by device A is no fresh answer for B: B mounting after it asks again, one request", async () => {
  const [a, b] = await devices(2);
  const options = { staleTime: 60_000 };
  host.failing = true;
  await showAWithBAway(a!, b!, options);
  await waitFor(() => expect(shown("a")).toBe("error error"));
  expect(host.gets()).toBe(1);
  host.failing = false;
  await press("toggle b");
  await waitFor(() => expect(shown("b-n")).toBe("2"));
  await waitFor(() => expect(fetching(b!)).toBe("idle"));
  expect(host.gets()).toBe(2);
  // B's result reaches A, whose query showed the error: it shows the data now.
  await waitFor(() => expect(shown("a")).toBe("empty"));
}, 20_000);

it("a device offline while another records newer data, its list unmounted: back online and mounted, it shows the newer data with no request", async () => {
  const [a, b] = await aAndGatedB();
  const options = { staleTime: 60_000 };
  render(
    <>
      {a.wrap(<ListWithAdd name="a" options={options} />)}
      {b.wrap(<Routed d={b} options={options} />)}
    </>,
  );
  await settledOn([a, b], ["empty", "empty"]);
  await press("toggle b");
  await cutOff(b);
  await press("add a");
  await waitFor(() => expect(shown("a")).toBe("x"));
  await waitFor(() => expect(fetching(a)).toBe("idle"));
  b.link!.up();
  await waitFor(() => expect(b.peers.provider.synced).toBe(true), { timeout: 10_000 });
  await press("toggle b");
  await waitFor(() => expect(shown("b")).toBe("x"));
  await waitFor(() => expect(fetching(b)).toBe("idle"));
  expect(host.seen).toEqual(["GET", "POST", "GET"]);
}, 20_000);

it("a device offline while another records newer data, its list shown: back online it moves to the newer data, never back, with no request", async () => {
  const [a, b] = await aAndGatedB();
  const options = { staleTime: 60_000 };
  render(
    <>
      {a.wrap(<ListWithAdd name="a" options={options} />)}
      {b.wrap(<List name="b" options={options} />)}
    </>,
  );
  await settledOn([a, b], ["empty", "empty"]);
  const shownB = watchShown("b");
  await cutOff(b);
  await press("add a");
  await waitFor(() => expect(shown("a")).toBe("x"));
  await waitFor(() => expect(fetching(a)).toBe("idle"));
  expect(shown("b")).toBe("empty");
  b.link!.up();
  await waitFor(() => expect(shown("b")).toBe("x"), { timeout: 10_000 });
  await waitFor(() => expect(fetching(b)).toBe("idle"));
  expect(shownB()).toEqual(["x"]);
  expect(host.seen).toEqual(["GET", "POST", "GET"]);
}, 20_000);

it("two devices refetch while cut off from each other: once back in sync both show the later request's data, never the older after it", async () => {
  const [a, b] = await aAndGatedB();
  render(lists([a, b], { staleTime: 60_000 }));
  await settledOn([a, b], ["1", "1"], "-n");
  const [shownA, shownB] = [watchShown("a-n"), watchShown("b-n")];
  await cutOff(b);
  await act(() => b.client.refetchQueries());
  await waitFor(() => expect(shown("b-n")).toBe("2"));
  await act(() => a.client.refetchQueries());
  await waitFor(() => expect(shown("a-n")).toBe("3"));
  b.link!.up();
  await waitFor(() => expect(shown("b-n")).toBe("3"), { timeout: 10_000 });
  await waitFor(() => expect([fetching(a), fetching(b)]).toEqual(["idle", "idle"]));
  expect(shownA()).toEqual(["3"]);
  expect(shownB()).toEqual(["2", "3"]);
  expect(host.gets()).toBe(3);
}, 20_000);

it("two devices refetch while cut off from each other, the cut-off one last: once back in sync both show its later data", async () => {
  const [a, b] = await aAndGatedB();
  render(lists([a, b], { staleTime: 60_000 }));
  await settledOn([a, b], ["1", "1"], "-n");
  await cutOff(b);
  await act(() => a.client.refetchQueries());
  await waitFor(() => expect(shown("a-n")).toBe("2"));
  await act(() => b.client.refetchQueries());
  await waitFor(() => expect(shown("b-n")).toBe("3"));
  b.link!.up();
  await waitFor(() => expect(shown("a-n")).toBe("3"), { timeout: 10_000 });
  await waitFor(() => expect([fetching(a), fetching(b)]).toEqual(["idle", "idle"]));
  expect(shown("b-n")).toBe("3");
  expect(host.gets()).toBe(3);
}, 20_000);
