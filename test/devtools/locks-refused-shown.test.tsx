// @vitest-environment jsdom
/**
 * Web Locks refused (an opaque origin, a sandboxed iframe: a SecurityError on every request): the
 * store claims as one without them, waiting the settle window, and finds a crash of a tab of its
 * browser by the lease. The panel said none of it: its settle window read "the settleMs option" (or
 * "the default") as for any store, and only the console told of the refusal. Now its settle window in
 * `inspect()` says `refused`, the Replicas tab's line for it names the refusal and what the store
 * does instead, and the Timeline tells it once.
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry, SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);
beforeEach(useFakeClock);
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const refuse = () => Promise.reject(new DOMException("The request was denied.", "SecurityError"));
const refusing: LockManagerLike = { request: refuse, query: refuse };
const LINE = "Web Locks refused — claims wait the settle window; a crash is found by the lease";

it("a store refused its Web Locks says so in inspect(), in the Replicas tab's settle window and once in the Timeline", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const c = cluster(0);
  const a = c.join({ locks: refusing, browserId: "browser-1" });
  const model = createDevtoolsModel(a, { minNotifyIntervalMs: 0 });
  await tick(10);
  // Before any claim, nothing was refused yet (the store asks for a key's lock as it claims).
  expect(model.getSnapshot().settle).toMatchObject({ ms: 20, why: "settle-ms" });
  expect(model.getSnapshot().settle?.refused).toBeUndefined();
  background(a.ensure({ url: URL_A }));
  await tick(30);
  expect(c.host.calls).toHaveLength(1);
  expect(a.inspect().settle?.refused).toBe(true);
  expect(model.getSnapshot().settle?.refused).toBe(true);
  // Refused again by a second claim: told once.
  background(a.ensure({ url: `${URL_A}/2` }));
  await tick(30);
  const told = model.getSnapshot().timeline.filter((e) => e.type === "refused");
  expect(told.map((e) => describeEntry(e, () => "A"))).toEqual([`A: ${LINE}`]);

  render(<SharedFetchDevtoolsPanel store={a} initialTab="replicas" />);
  await act(async () => vi.advanceTimersByTimeAsync(10));
  expect(screen.getByTestId("settle-window").textContent).toMatch(new RegExp(`window 20 ms: the settleMs option; ${LINE}$`));
  model.destroy();
});

it("a store whose Web Locks are granted says nothing of a refusal", async () => {
  const c = cluster(0);
  const a = c.join({ locks: new FakeLocks().forTab("a"), browserId: "browser-1" });
  const model = createDevtoolsModel(a, { minNotifyIntervalMs: 0 });
  await tick(10);
  background(a.ensure({ url: URL_A }));
  await tick(30);
  expect(c.host.calls).toHaveLength(1);
  expect(a.inspect().settle?.refused).toBeUndefined();
  expect(model.getSnapshot().timeline.filter((e) => e.type === "refused")).toEqual([]);
  render(<SharedFetchDevtoolsPanel store={a} initialTab="replicas" />);
  await act(async () => vi.advanceTimersByTimeAsync(10));
  expect(screen.getByTestId("settle-window").textContent).not.toMatch(/refused/);
  model.destroy();
});
