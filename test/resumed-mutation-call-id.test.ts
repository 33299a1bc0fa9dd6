/**
 * README, "A paused mutation resumed after a reload is one request across the tabs": the paused
 * mutations a tab saved (TanStack's dehydrate, as its persister does) are restored by each tab that
 * reloads (hydrate) and resumed (`resumePausedMutations`), their `mutationFn` a sharedMutationFn
 * registered with `setMutationDefaults`. Here: tabs that are replicas of their own and tabs of one
 * SharedWorker replica, two calls submitted in one millisecond, and useMutation's own retry.
 */
import { dehydrate, hydrate, MutationObserver, onlineManager, QueryClient, type DehydratedState } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedMutationFn, type SharedFetchStore } from "../src/index.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import type { Host } from "../sim/host.ts";
import { cluster, URL_A } from "./harness/replicas.ts";
import { browser } from "./worker/browser-sim.ts";

afterEach(() => onlineManager.setOnline(true));

const post = (item: string) => ({ url: URL_A, method: "POST", body: JSON.stringify({ item }) });
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function withDefaults(store: SharedFetchStore, retry = 0): QueryClient {
  const client = new QueryClient();
  client.setMutationDefaults(["order"], { mutationFn: sharedMutationFn(store, post), retry, retryDelay: 0 });
  return client;
}

/** A visit while offline: `items` mutated in one go (one millisecond), saved as the persister saves them. */
async function offlineVisit(store: SharedFetchStore, items: string[]): Promise<DehydratedState> {
  onlineManager.setOnline(false);
  const client = withDefaults(store);
  // One millisecond for every call of the visit, as a loop of mutate on an idle page gets: on a
  // busy machine the loop may cross a millisecond, and the calls' names would differ for that alone.
  const clock = vi.spyOn(Date, "now").mockReturnValue(Date.now() - 1000);
  let saved: DehydratedState;
  try {
    for (const item of items)
      void new MutationObserver<unknown, Error, string>(client, { mutationKey: ["order"] }).mutate(item).catch(() => {});
    await wait(2); // paused (TanStack decides after its onMutate step)
    saved = dehydrate(client);
  } finally {
    clock.mockRestore();
  }
  expect(saved.mutations.map((m) => m.state.isPaused)).toEqual(items.map(() => true));
  client.getMutationCache().clear();
  onlineManager.setOnline(true);
  await wait(2); // the reloaded tabs' functions are made after the calls were submitted
  return saved;
}

/** A reloaded tab: restores what was saved and resumes it; resolves with its mutations' states once settled. */
async function resume(store: SharedFetchStore, saved: DehydratedState, retry = 0) {
  const client = withDefaults(store, retry);
  hydrate(client, saved);
  await client.resumePausedMutations();
  return client
    .getMutationCache()
    .getAll()
    .map((m) => ({ status: m.state.status, data: m.state.data }));
}

function tabs() {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  let n = 0;
  return { host: c.host, tab: () => c.join({ locks: locks.forTab(`t${++n}`), browserId: "browser-1" }) };
}

const answering = (host: Host) =>
  (host.auto = (call) => ({ status: 201, body: { order: call.n, item: (JSON.parse(call.body!) as { item: string }).item } }));

describe("a restored paused mutation, resumed by each tab", () => {
  it("tabs of one SharedWorker replica (connectBrowser), one resuming after the other and two at once: one POST", async () => {
    const b = browser(tabs().host);
    answering(b.host);
    const [one, two, three] = [b.tab(), b.tab(), b.tab()];
    const saved = await offlineVisit(one, ["book"]);
    expect(await resume(one, saved)).toEqual([{ status: "success", data: { order: 1, item: "book" } }]);
    const later = await Promise.all([resume(two, saved), resume(three, saved)]);
    expect(later).toEqual([0, 1].map(() => [{ status: "success", data: { order: 1, item: "book" } }]));
    expect(b.host.calls).toHaveLength(1);
  });

  it("tabs of one SharedWorker replica, all three restoring and resuming it at once: one POST, one outcome in each", async () => {
    const b = browser(tabs().host);
    answering(b.host);
    const [one, two, three] = [b.tab(), b.tab(), b.tab()];
    const saved = await offlineVisit(one, ["book"]);
    const resumed = await Promise.all([one, two, three].map((tab) => resume(tab, saved)));
    expect(resumed).toEqual([0, 1, 2].map(() => [{ status: "success", data: { order: 1, item: "book" } }]));
    expect(b.host.calls).toHaveLength(1);
  });

  it("two equal calls submitted in the same millisecond stay two POSTs, resumed by one tab and then another", async () => {
    const t = tabs();
    answering(t.host);
    const saved = await offlineVisit(t.tab(), ["book", "book"]);
    expect(saved.mutations[0]!.state.submittedAt).toBe(saved.mutations[1]!.state.submittedAt);
    const first = await resume(t.tab(), saved);
    expect(first.map((m) => m.status)).toEqual(["success", "success"]);
    expect(t.host.calls).toHaveLength(2);
    // Each call its own revision or key: its own Idempotency-Key.
    expect(new Set(t.host.calls.map((call) => call.headers["idempotency-key"])).size).toBe(2);
    const second = await resume(t.tab(), saved);
    expect(second).toEqual(first);
    expect(t.host.calls).toHaveLength(2);
  });

  it("a resumed call that failed, with no retry: a tab resuming it later takes that error, unsent (one call, one outcome)", async () => {
    const t = tabs();
    t.host.auto = () => ({ status: 503, body: {} });
    const saved = await offlineVisit(t.tab(), ["book"]);
    expect((await resume(t.tab(), saved)).map((m) => m.status)).toEqual(["error"]);
    expect((await resume(t.tab(), saved)).map((m) => m.status)).toEqual(["error"]);
    expect(t.host.calls).toHaveLength(1);
  });

  it.each([
    ["tabs of their own", false],
    ["tabs of a SharedWorker replica", true],
  ] as const)(
    "%s: a resumed call that failed is sent again by useMutation's retry, with a new Idempotency-Key; a tab resuming later takes its outcome",
    async (_, worker) => {
      const t = tabs();
      const b = worker ? browser(t.host) : undefined;
      const tab = () => (b ? b.tab() : t.tab());
      t.host.auto = (call) => (call.n === 1 ? { status: 503, body: {} } : { status: 201, body: { order: call.n } });
      const saved = await offlineVisit(tab(), ["book"]);
      expect(await resume(tab(), saved, 1)).toEqual([{ status: "success", data: { order: 2 } }]);
      expect(t.host.calls).toHaveLength(2);
      const [a, c] = t.host.calls.map((call) => call.headers["idempotency-key"]);
      expect(a).toBeTruthy();
      expect(c).toBeTruthy();
      expect(c).not.toBe(a);
      expect(await resume(tab(), saved, 1)).toEqual([{ status: "success", data: { order: 2 } }]);
      expect(t.host.calls).toHaveLength(2);
    },
  );
});
