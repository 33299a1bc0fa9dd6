/**
 * The Web Locks stand-in the tabs' tests run on grants as the Web Locks spec does: before, every
 * request was granted at once, so two holders of one exclusive lock went unseen (a tab's IndexedDB
 * writer lock, a key lock) and `ifAvailable`, `steal` and `signal` were ignored.
 */
import { describe, expect, it } from "vitest";
import { browserLocks } from "./browser-locks.ts";

/** A lock held until the returned `release` is called; `granted` resolves with what the callback got. */
function hold(
  locks: ReturnType<typeof browserLocks>,
  name: string,
  options: Parameters<ReturnType<typeof browserLocks>["request"]>[1] = {},
) {
  let release!: () => void;
  let granted!: (lock: unknown) => void;
  const grant = new Promise<unknown>((resolve) => (granted = resolve));
  const done = locks.request(name, options, (lock) => (granted(lock), new Promise<void>((r) => (release = r))));
  return { grant, done, release: () => release() };
}

const flush = () => new Promise((r) => setImmediate(r));

describe("browserLocks: Web Locks as the spec grants them", () => {
  it("an exclusive lock has one holder; the next is granted at its release, in order", async () => {
    const locks = browserLocks();
    const order: string[] = [];
    const a = hold(locks, "x");
    const b = hold(locks, "x");
    void a.grant.then(() => order.push("a"));
    void b.grant.then(() => order.push("b"));
    await flush();
    expect(order).toEqual(["a"]);
    expect((await locks.query()).pending).toEqual([{ name: "x", mode: "exclusive" }]);
    a.release();
    await flush();
    expect(order).toEqual(["a", "b"]);
    expect((await locks.query()).held).toEqual([{ name: "x", mode: "exclusive" }]);
  });

  it("shared locks have many holders; an exclusive one waits for them all, and shared ones behind it wait too", async () => {
    const locks = browserLocks();
    const s1 = hold(locks, "x", { mode: "shared" });
    const s2 = hold(locks, "x", { mode: "shared" });
    const ex = hold(locks, "x");
    const s3 = hold(locks, "x", { mode: "shared" });
    const got: string[] = [];
    for (const [tag, h] of [
      ["s1", s1],
      ["s2", s2],
      ["ex", ex],
      ["s3", s3],
    ] as const)
      void h.grant.then(() => got.push(tag));
    await flush();
    expect(got).toEqual(["s1", "s2"]);
    s1.release();
    await flush();
    expect(got).toEqual(["s1", "s2"]);
    s2.release();
    await flush();
    expect(got).toEqual(["s1", "s2", "ex"]);
    ex.release();
    await flush();
    expect(got).toEqual(["s1", "s2", "ex", "s3"]);
  });

  it("ifAvailable calls back with null when the lock is held (or others wait for it), with the lock when it is free", async () => {
    const locks = browserLocks();
    const a = hold(locks, "x");
    await a.grant;
    await expect(locks.request("x", { ifAvailable: true }, (lock) => lock)).resolves.toBeNull();
    await expect(locks.request("x", { mode: "shared", ifAvailable: true }, (lock) => lock)).resolves.toBeNull();
    await expect(locks.request("y", { ifAvailable: true }, (lock) => lock)).resolves.toEqual({ name: "y", mode: "exclusive" });
  });

  it("steal takes the lock from its holder, whose request rejects with AbortError, ahead of the queue", async () => {
    const locks = browserLocks();
    const a = hold(locks, "x");
    const queued = hold(locks, "x");
    await a.grant;
    const order: string[] = [];
    void queued.grant.then(() => order.push("queued"));
    const rejected = expect(a.done).rejects.toMatchObject({ name: "AbortError" });
    const thief = hold(locks, "x", { steal: true });
    await thief.grant;
    await rejected;
    expect(order).toEqual([]);
    thief.release();
    await flush();
    expect(order).toEqual(["queued"]);
    await expect(locks.request("x", { steal: true, ifAvailable: true }, () => {})).rejects.toMatchObject({ name: "NotSupportedError" });
  });

  it("a signal aborted before the grant takes the request out of the queue with its reason; after the grant it does nothing", async () => {
    const locks = browserLocks();
    const a = hold(locks, "x");
    const controller = new AbortController();
    let called = false;
    const waiting = locks.request("x", { signal: controller.signal }, () => void (called = true));
    controller.abort(new DOMException("gone", "AbortError"));
    await expect(waiting).rejects.toMatchObject({ name: "AbortError", message: "gone" });
    expect((await locks.query()).pending).toEqual([]);
    a.release();
    await flush();
    expect(called).toBe(false);
    await expect(locks.request("x", { signal: controller.signal }, () => {})).rejects.toMatchObject({ message: "gone" });

    const late = new AbortController();
    const b = hold(locks, "x", { signal: late.signal });
    await b.grant;
    late.abort();
    b.release();
    await expect(b.done).resolves.toBeUndefined();
  });

  it("query reports `extra` names as held by nobody here", async () => {
    const locks = browserLocks(["frozen-tab"]);
    expect((await locks.query()).held).toEqual([{ name: "frozen-tab", mode: "exclusive" }]);
  });
});
