// @vitest-environment jsdom
/**
 * A feed mounted after its pages were recorded, whose first page it fetches from nothing: the
 * chain recorded after that page comes along (chainAfter), page after page from the store. A page
 * of it whose latest outcome is an error (the store's snapshot says `status: "error"`) was not
 * checked: a page with no result ended the chain with no error shown, and a page whose newer
 * request failed over an older result showed that result and the pages past it, as if the chain
 * were whole. The chain now ends before that page and the feed shows its error as TanStack shows
 * a fetchNextPage that failed: the pages before it kept, status "error", `error`, `failureCount`
 * 1 and `failureReason`; its next fetchNextPage asks for the page anew.
 */
import { cleanup } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { failedAfter, feedOf as mountFeed, pageUrl, setUp } from "../harness/feed-failed-page.tsx";
import { advance } from "../harness/render-app.tsx";
import { useFakeClock } from "../harness/replicas.ts";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

/** B's feed, rendered with its providers at once. */
const feedOf = (b: SharedFetchStoreWithExtras) => mountFeed(b, { alone: true });

it("a recorded page with no result, only an error: the restored chain shows the pages before it with its error, as a failed fetchNextPage shows it", async () => {
  useFakeClock();
  const { c, b, host, record } = setUp();
  await record(1);
  host.failing.add(2);
  await record(2);
  expect(b.snapshot({ url: pageUrl(2) })).toMatchObject({ status: "error", error: { status: 500 } });
  const calls = c.host.calls.length;

  const feed = feedOf(b);
  await advance(50);
  expect(c.host.calls.slice(calls).map((call) => call.url)).toEqual([pageUrl(0)]);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));

  // Its next fetchNextPage asks for the failed page anew.
  host.failing.clear();
  host.v = 2;
  feed.fetchNextPage();
  await advance(50);
  expect(c.host.calls.slice(calls).map((call) => call.url)).toEqual([pageUrl(0), pageUrl(2)]);
  expect(feed.last()).toEqual({ status: "success", fetchStatus: "idle", pages: "0@1 1@1 2@2", failures: 0, more: true });
});

it("a recorded page whose newer request failed over an older result: the restored chain ends before it (neither its older data nor the pages past it) and shows its error", async () => {
  useFakeClock();
  const { b, failOverOlder } = setUp();
  await failOverOlder([1, 2, 3]);
  expect(b.snapshot({ url: pageUrl(2) })).toMatchObject({ status: "error", data: { v: 1 }, error: { status: 500 } });

  const feed = feedOf(b);
  await advance(50);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));
  expect(feed.shown.map((s) => s.pages)).not.toContain("0@1 1@1 2@1 3@1");
});
