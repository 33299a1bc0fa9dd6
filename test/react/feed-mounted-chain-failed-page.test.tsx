// @vitest-environment jsdom
/**
 * A feed mounted where its first page is recorded shows the chain recorded from it at once
 * (recordedChain, its initialData), page after page from the store. A page of it after the first
 * whose latest outcome is an error (the store's snapshot says `status: "error"`) was not checked:
 * a page with no result ended the chain with status "success" and no error, and a page whose newer
 * request failed over an older result showed that result and the pages past it. A feed whose
 * first page it fetched from nothing shows the same records as a failed fetchNextPage
 * (feed-restored-chain-failed-page): the mounted one now does too, the pages before that page
 * kept, status "error", `failureCount` 1, with no request; its next fetchNextPage asks for the page anew.
 * The error shows from the feed's first render, as at every later one (that render showed
 * "success" before, and still did where the provider mounted with the feed, as at an app's root); its invalidation (TanStack's mark of a failed fetchNextPage) comes once the
 * feed is observed, after its mount decided not to fetch: shown before, it made the mount refetch
 * the pages, which then cleared the error. A stale chain's mount refetches and shows what that
 * tells; a disabled feed shows the pages alone.
 */
import { cleanup } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { failedAfter, feedOf, pageUrl, setUp } from "../harness/feed-failed-page.tsx";
import { advance } from "../harness/render-app.tsx";
import { useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

it("a recorded page with no result, only an error: the chain a mount shows ends before it with its error, as a failed fetchNextPage shows it; the next fetchNextPage asks for it anew", async () => {
  useFakeClock();
  const { c, b, host, record } = setUp();
  for (const cursor of [0, 1]) await record(cursor);
  host.failing.add(2);
  await record(2);
  expect(b.snapshot({ url: pageUrl(2) })).toMatchObject({ status: "error", error: { status: 500 } });
  const calls = c.host.calls.length;

  const feed = feedOf(b);
  await advance(50);
  expect(c.host.calls.length).toBe(calls);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));

  host.failing.clear();
  host.v = 2;
  feed.fetchNextPage();
  await advance(50);
  expect(c.host.calls.slice(calls).map((call) => call.url)).toEqual([pageUrl(2)]);
  expect(feed.last()).toEqual({ status: "success", fetchStatus: "idle", pages: "0@1 1@1 2@2", failures: 0, more: true });
});

it("a recorded page whose newer request failed over an older result: the chain a mount shows ends before it (neither its older data nor the pages past it) and shows its error", async () => {
  useFakeClock();
  const { c, b, failOverOlder } = setUp();
  await failOverOlder();
  expect(b.snapshot({ url: pageUrl(2) })).toMatchObject({ status: "error", data: { v: 1 }, error: { status: 500 } });
  const calls = c.host.calls.length;

  const feed = feedOf(b);
  await advance(50);
  expect(c.host.calls.length).toBe(calls);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));
  expect(feed.shown.map((s) => s.pages)).not.toContain("0@1 1@1 2@1 3@1");
});

it("a chain the client read before any feed observed it (ensureInfiniteQueryData, getQueryData): the feed mounted on it shows the error, unsent", async () => {
  useFakeClock();
  const { c, b, failOverOlder } = setUp();
  await failOverOlder();
  const calls = c.host.calls.length;

  const feed = feedOf(b, { before: true });
  await advance(50);
  expect(c.host.calls.length).toBe(calls);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));
  expect(feed.shown.map((s) => s.fetchStatus)).not.toContain("fetching");
});

it("each render of a feed mounted on that chain shows the error, the first included (no render shows it as success), its provider mounted before it or with it, and the feed is invalidated once observed, unsent", async () => {
  useFakeClock();
  const { c, b, failOverOlder } = setUp();
  await failOverOlder();
  const calls = c.host.calls.length;

  // `alone`: the provider rendered with the feed, as at an app's root (it hands out the feed's
  // query before its own effects run).
  for (const mount of [
    {},
    { suspense: true },
    { before: true },
    { maxPages: 3 },
    { alone: true },
    { alone: true, suspense: true },
    { alone: true, strict: true },
  ]) {
    const feed = feedOf(b, mount);
    await advance(50);
    expect(
      feed.shown.map((s) => s.status),
      JSON.stringify(mount),
    ).toEqual(feed.shown.map(() => "error"));
    expect(feed.shown[0], JSON.stringify(mount)).toEqual(failedAfter("0@1 1@1"));
    expect(feed.client.getQueryState(feed.options.queryKey)?.isInvalidated, JSON.stringify(mount)).toBe(true);
    cleanup();
  }
  expect(c.host.calls.length).toBe(calls);
});

it('a mount that refetches the chain (stale, or refetchOnMount "always") shows no error meanwhile, the refetch\'s outcome telling; a disabled feed shows the shorter chain alone', async () => {
  useFakeClock();
  const { c, b, failOverOlder } = setUp();
  await failOverOlder();
  const calls = c.host.calls.length;
  const refetched = { status: "success", fetchStatus: "idle", pages: "0@1 1@1", failures: 0, more: true };

  const disabled = feedOf(b, { enabled: false });
  await advance(50);
  expect(disabled.shown.map((s) => s.status)).toEqual(disabled.shown.map(() => "success"));
  expect(disabled.last()).toEqual(refetched);
  expect(c.host.calls.length).toBe(calls);
  cleanup();

  const always = feedOf(b, { refetchOnMount: "always" });
  await advance(50);
  expect(c.host.calls.slice(calls).map((call) => call.url)).toEqual([pageUrl(0), pageUrl(1)]);
  expect(always.shown.map((s) => s.status)).toEqual(always.shown.map(() => "success"));
  expect(always.last()).toEqual(refetched);
  cleanup();

  await advance(61_000);
  const stale = feedOf(b);
  await advance(50);
  expect(c.host.calls.slice(calls + 2).map((call) => call.url)).toEqual([pageUrl(0), pageUrl(1)]);
  expect(stale.shown.map((s) => s.status)).toEqual(stale.shown.map(() => "success"));
  expect(stale.last()).toEqual(refetched);
});

it("useSuspenseInfiniteQuery mounted on that chain shows the pages before the failed page with its error, without suspending", async () => {
  useFakeClock();
  const { c, b, failOverOlder } = setUp();
  await failOverOlder();
  const calls = c.host.calls.length;

  const feed = feedOf(b, { suspense: true });
  await advance(50);
  expect(c.host.calls.length).toBe(calls);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));
  expect(feed.shown.map((s) => s.pages)).not.toContain("0@1 1@1 2@1 3@1");
});

it("maxPages bounds the chain before the failed page is reached: no error, as a chain built after a fetched first page ends there too; one page more reaches it", async () => {
  useFakeClock();
  const { b, failOverOlder } = setUp();
  await failOverOlder();

  const two = feedOf(b, { maxPages: 2 });
  await advance(50);
  expect(two.last()).toEqual({ status: "success", fetchStatus: "idle", pages: "0@1 1@1", failures: 0, more: true });
  cleanup();

  const three = feedOf(b, { maxPages: 3 });
  await advance(50);
  expect(three.last()).toEqual(failedAfter("0@1 1@1"));
});

it("the failed page recorded since by another device, then the pages shown refreshed: the mounted feed shows them as success; refreshed while it still fails, the error stays", async () => {
  useFakeClock();
  const { b, host, record, refresh } = setUp();
  for (const cursor of [0, 1]) await record(cursor);
  host.failing.add(2);
  await record(2);
  const feed = feedOf(b);
  await advance(50);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));

  host.v = 2;
  await refresh(0, 1);
  await advance(50);
  expect(feed.last()).toEqual(failedAfter("0@2 1@2"));

  host.failing.clear();
  host.v = 3;
  await refresh(2, 0, 1);
  await advance(50);
  expect(b.snapshot({ url: pageUrl(2) })).toMatchObject({ status: "success", data: { v: 3 } });
  expect(feed.last()).toEqual({ status: "success", fetchStatus: "idle", pages: "0@3 1@3", failures: 0, more: true });
});
