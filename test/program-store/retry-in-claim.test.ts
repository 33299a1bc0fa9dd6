/**
 * ensureProgram / refetchProgram take `retry` and `retryDelay` as ensure does (TanStack's values
 * or a RetryPolicy): a failed resolution is resolved again inside the claim, so every replica
 * waiting on it stays pending through the retries, the host sees one sequence of resolutions and
 * an error is recorded once, after the last. A retry asks the host past its HTTP cache (a 404 may
 * be cached). A wrong shape is refused before anything is written.
 */
import { beforeAll, expect, it } from "vitest";
import { SharedFetchInputError } from "../../src/index.ts";
import { HELPER, MAIN, serveFlakyProgram } from "../harness/flaky-program.ts";
import { cluster, tick, until, useFakeClock } from "../harness/replicas.ts";

// The resolver is a lazy chunk: loaded here, its import() settles within the fake clock's microtasks.
beforeAll(() => import("../../src/core/program/index.ts"));

/** A cluster whose host serves a flaky program (serveFlakyProgram); each call's `cache` noted. */
function setUp(failures: number) {
  const caches: (RequestCache | undefined)[] = [];
  const sent: { to?: typeof fetch } = {};
  const c = cluster(2, { settleMs: 0, fetch: (input, init) => (caches.push(init?.cache), sent.to!(input, init)) });
  sent.to = c.host.fetch;
  serveFlakyProgram(c.host, failures);
  const paths = () => c.host.calls.map((call) => new URL(call.url).pathname);
  /** Runs the fake clock in 10 ms steps until the host has had `n` calls. */
  const callsReach = async (n: number) => {
    while (c.host.calls.length < n) await tick(10);
  };
  return { c, caches, paths, callsReach };
}

it("a resolution that fails is retried inside the claim: the joining replica stays pending, both get the program, no error recorded", async () => {
  useFakeClock();
  const { c, caches, paths, callsReach } = setUp(1);
  const [a, b] = c.stores;
  const req = { url: MAIN };
  const first = a!.ensureProgram(req, { retry: 2, retryDelay: 1000 });
  await callsReach(2);
  expect(paths()).toEqual(["/app/main.ts", "/app/helper.ts"]);
  // b joins a's claim (no retry of its own) and waits through a's pause.
  const second = b!.ensureProgram(req);
  await tick(500);
  expect(b!.programSnapshot(req).status).toBe("pending");
  expect(b!.programSnapshot(req).error).toBeUndefined();
  expect(c.host.calls).toHaveLength(2);
  const [sa, sb] = await until(Promise.all([first, second]));
  expect(sa.status).toBe("success");
  expect(sb.status).toBe("success");
  expect(sb.data!.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/helper.ts"]);
  expect(paths()).toEqual(["/app/main.ts", "/app/helper.ts", "/app/main.ts", "/app/helper.ts"]);
  // The retry revalidates what it reads with the host: the browser may have cached the failure.
  expect(caches).toEqual([undefined, undefined, "no-cache", "no-cache"]);
  expect(c.host.calls.map((call) => call.url)).toContain(HELPER);
});

it("retries exhausted: the error is recorded once, after the last attempt, and every waiting replica sees it then", async () => {
  useFakeClock();
  const { c, paths, callsReach } = setUp(Infinity);
  const [a, b] = c.stores;
  const req = { url: MAIN };
  const delays: number[] = [];
  const first = a!.ensureProgram(req, { retry: (n) => n < 2, retryDelay: (n) => (delays.push(n), 100) });
  await callsReach(2);
  const second = b!.ensureProgram(req);
  await tick(150);
  expect(b!.programSnapshot(req).status).toBe("pending");
  const [sa, sb] = await until(Promise.all([first, second]));
  expect(sa.status).toBe("error");
  expect(sb.error!.status).toBe(503);
  // Asked first on every failure, the last one too, as TanStack's retryer asks it.
  expect(delays).toEqual([0, 1, 2]);
  expect(paths().filter((p) => p === "/app/helper.ts")).toHaveLength(3);
});

it("refetchProgram retries too; no retry given retries nothing (the store's default)", async () => {
  useFakeClock();
  const { c, paths } = setUp(1);
  const a = c.stores[0]!;
  const req = { url: MAIN };
  expect((await until(a.ensureProgram(req))).error!.status).toBe(503);
  expect(paths()).toEqual(["/app/main.ts", "/app/helper.ts"]);
  const { c: c2 } = setUp(1);
  const snap = await until(c2.stores[0]!.refetchProgram!(req, { retry: 1, retryDelay: 0 }));
  expect(snap.status).toBe("success");
  expect(c2.host.calls).toHaveLength(4);
});

it("a retry of the wrong shape is refused at the call, naming it, before anything is written", async () => {
  useFakeClock();
  const { c } = setUp(0);
  const a = c.stores[0]!;
  const error = await a.ensureProgram({ url: MAIN }, { retry: "3" as never }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SharedFetchInputError);
  expect((error as Error).message).toMatch(/retry must be .*got "3"/);
  const delayAlone = await a.ensureProgram({ url: MAIN }, { retryDelay: 5 }).catch((e: unknown) => e);
  expect((delayAlone as Error).message).toMatch(/retryDelay 5 was given without retry/);
  await tick(10);
  expect(c.host.calls).toHaveLength(0);
  expect(a.claims()).toHaveLength(0);
});
