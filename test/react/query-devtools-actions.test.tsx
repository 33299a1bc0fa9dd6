// @vitest-environment jsdom
/**
 * TanStack's own Query devtools (`<ReactQueryDevtools />`) beside shared queries: each button of a
 * query's details, run as the devtools run it (test/harness/query-devtools-actions.ts), on a shared
 * query in tab a beside a plain query over the same real HTTP server on 127.0.0.1, while tab b of
 * the same browser shows the shared query too. What each does to the shared record and to tab b.
 */
import { QueryClient, useQuery, type Query } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { badgeOf, queryDevtools } from "../harness/query-devtools-actions.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";
import { pause, sideBySide, sideBySideServerForFile, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;
const PATH = "/report";
const fresh = { shared: "success idle 1", plain: "success idle 1", b: "success idle 1" };

/**
 * Tab a shows the shared query and a plain one, tab b the shared one; each pane logs what it shows
 * ("status fetchStatus n", and the error's message). `writes`: what tab a's store wrote into its
 * doc since the last button.
 */
async function tabs(options: object = { staleTime: 60_000 }, { wait = true } = {}) {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const join = (name: string) => c.join({ locks: locks.forTab(name), browserId: "browser-1", fetch: globalThis.fetch });
  const a = join("a");
  const b = join("b");
  const writes: Uint8Array[] = [];
  c.docOf(a).on("update", (update: Uint8Array, _origin: unknown, _doc: unknown, tr: { local: boolean }) => tr.local && writes.push(update));
  const clients = { a: new QueryClient(), b: new QueryClient() };
  const logs: Record<"shared" | "plain" | "b", string[]> = { shared: [], plain: [], b: [] };
  const Pane = ({ name, options }: { name: keyof typeof logs; options: object }) => {
    const q = useQuery(options as never) as { status: string; fetchStatus: string; data?: Body; error: Error | null };
    const shown = `${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}${q.error ? ` ${q.error.message}` : ""}`;
    if (logs[name].at(-1) !== shown) logs[name].push(shown);
    return null;
  };
  const [shared, plain] = sideBySide(server, a, PATH, options);
  const [sharedB] = sideBySide(server, b, PATH, options);
  const mountA = () =>
    render(
      app(
        a,
        <>
          <Pane name="shared" options={shared} />
          <Pane name="plain" options={plain} />
        </>,
        clients.a,
      ),
    );
  const last = () => ({ shared: logs.shared.at(-1), plain: logs.plain.at(-1), b: logs.b.at(-1) });
  render(app(b, <Pane name="b" options={sharedB} />, clients.b));
  // Tab b's request answered and recorded before tab a mounts; then every pane shows it.
  if (wait) await eventually(() => expect(last().b).toBe(fresh.b));
  const viewA = mountA();
  if (wait) await eventually(() => expect(last()).toEqual(fresh));
  const find = (client: QueryClient, key: readonly unknown[]) => client.getQueryCache().find({ queryKey: key, exact: true }) as AnyQuery;
  const q = {
    shared: () => find(clients.a, shared.queryKey),
    plain: () => find(clients.a, plain.queryKey),
    b: () => find(clients.b, sharedB.queryKey),
  };
  const sent = (side: "s" | "p") => server.seen.filter((p) => p.startsWith(`/${side}/`)).length;
  return {
    a,
    b,
    c,
    clients,
    logs,
    q,
    sent,
    last,
    writes,
    viewA,
    mountA,
    remount: () => render(app(a, <Pane name="shared" options={shared} />, clients.a)),
  };
}

/** Runs a devtools button on both of tab a's queries (the shared one, then the plain one). */
async function press(t: Awaited<ReturnType<typeof tabs>>, button: (query: AnyQuery, client: QueryClient) => void) {
  t.writes.length = 0;
  for (const which of ["shared", "plain"] as const) await act(async () => button(t.q[which](), t.clients.a));
  await pause(200);
}

/** Runs `step` with the server's answers held (seen in flight), then `answered()` lets them go. */
async function held(step: () => Promise<void>) {
  server.held = [];
  await step();
}
/**
 * Waits for what a step must lead to: a request to the server and its answer through both tabs take
 * longer than the step's pause on a loaded machine. The pauses stay, for what must not happen.
 */
const eventually = (check: () => void) => waitFor(check, { timeout: 5_000 });
const showing = (t: Awaited<ReturnType<typeof tabs>>, expected: object) => eventually(() => expect(t.last()).toEqual(expected));

async function answered() {
  server.held?.forEach((answer) => answer());
  server.held = null;
  await pause(200);
}

describe("the Query devtools' buttons on a shared query, beside a plain one", { timeout: 20_000 }, () => {
  it("Refetch (a bare query.fetch()) on fresh data sends one request that every tab shows, as a plain query's Refetch sends one; before, a fresh shared query sent nothing", async () => {
    const t = await tabs();
    expect(t.last()).toEqual(fresh);
    await press(t, (query) => queryDevtools.refetch(query));
    await showing(t, { shared: "success idle 2", plain: "success idle 2", b: "success idle 2" });
    expect([t.sent("s"), t.sent("p")]).toEqual([2, 2]);
  });

  it("Invalidate: one request for both tabs (invalidateQueries' shared path), as a plain query refetches once", async () => {
    const t = await tabs();
    expect(t.last()).toEqual(fresh);
    await press(t, (query, client) => queryDevtools.invalidate(client, query));
    await showing(t, { shared: "success idle 2", plain: "success idle 2", b: "success idle 2" });
    expect([t.sent("s"), t.sent("p")]).toEqual([2, 2]);
  });

  it("Reset: as resetQueries (README), the result recorded at the reset shows at once, then one request for both tabs", async () => {
    const t = await tabs();
    await held(() => press(t, (query, client) => queryDevtools.reset(client, query)));
    await showing(t, { shared: "success fetching 1", plain: "pending fetching -", b: "success idle 1" });
    await answered();
    await showing(t, { shared: "success idle 2", plain: "success idle 2", b: "success idle 2" });
    expect([t.sent("s"), t.sent("p")]).toEqual([2, 2]);
  });

  it("Remove: as removeQueries (README), it empties this tab's cache, not the shared record: tab b keeps its result, a remount shows the recorded one with no request", async () => {
    const t = await tabs();
    await press(t, (query, client) => queryDevtools.remove(client, query));
    expect([t.q.shared(), t.q.plain()]).toEqual([undefined, undefined]);
    expect(t.writes).toEqual([]);
    t.viewA.unmount();
    t.logs.shared.length = 0;
    t.remount();
    await pause(200);
    expect(t.logs.shared).toEqual(["success idle 1"]);
    expect(t.sent("s")).toBe(1);
    expect(t.last().b).toBe("success idle 1");
  });

  it("Trigger Loading stays in this tab's view (no claim, no write, no request; tab b not pending) until Restore, which shows the result recorded meanwhile; before, the recorded result came back at once and the query fetched for ever", async () => {
    const t = await tabs();
    await press(t, (query) => queryDevtools.loading(query));
    expect(t.last()).toEqual({ shared: "pending fetching -", plain: "pending fetching -", b: "success idle 1" });
    expect(badgeOf(t.q.shared())).toBe("fetching");
    // Rendered again (its options updated), the shared query still shows the devtools' state.
    await act(async () => t.q.shared().setOptions({ ...t.q.shared().options }));
    await pause(50);
    expect(t.last().shared).toBe("pending fetching -");
    expect(t.a.snapshot({ url: `${server.base}/s${PATH}` }).claim).toBeUndefined();
    expect(t.writes).toEqual([]);
    expect(t.sent("s")).toBe(1);
    // Tab b's refetch meanwhile: one request, which tab a's Restore then shows, with none of its own.
    await act(() => t.clients.b.refetchQueries({ queryKey: t.q.b().queryKey }));
    await pause(200);
    await eventually(() => expect(t.last().b).toBe("success idle 2"));
    expect(t.last().shared).toBe("pending fetching -");
    await press(t, (query) => queryDevtools.loading(query));
    await showing(t, { shared: "success idle 2", plain: "success idle 2", b: "success idle 2" });
    expect([t.sent("s"), t.sent("p")]).toEqual([2, 2]);
    expect([badgeOf(t.q.shared()), badgeOf(t.q.b())]).toEqual(["fresh", "fresh"]);
  });

  it("Trigger Error stays in this tab's view: nothing is written to the doc, tab b keeps its result (an error never overwrites a result); Restore (resetQueries) shows the doc's result, then refetches once as for a plain query; before, the shared query never showed the error", async () => {
    const t = await tabs();
    await press(t, (query, client) => queryDevtools.error(client, query));
    const error = "error idle - Unknown error from devtools";
    expect(t.last()).toEqual({ shared: error, plain: error, b: "success idle 1" });
    await act(async () => t.q.shared().setOptions({ ...t.q.shared().options }));
    await pause(50);
    expect(t.last().shared).toBe(error);
    expect(t.writes).toEqual([]);
    expect(t.b.snapshot({ url: `${server.base}/s${PATH}` })).toMatchObject({ status: "success", data: { n: 1 } });
    expect(t.b.snapshot({ url: `${server.base}/s${PATH}` }).error).toBeUndefined();
    await held(() => press(t, (query, client) => queryDevtools.error(client, query)));
    await showing(t, { shared: "success fetching 1", plain: "pending fetching -", b: "success idle 1" });
    await answered();
    await showing(t, { shared: "success idle 2", plain: "success idle 2", b: "success idle 2" });
    expect([t.sent("s"), t.sent("p")]).toEqual([2, 2]);
  });
});

describe("the Query devtools' cache view of a shared query", { timeout: 20_000 }, () => {
  it("while tab b's first request is in flight, tab a's mount joins it: pending and Fetching in both tabs' devtools, one request; a later refetch of tab b's is tab b's own work (useIsFetching's count): tab a reads fresh", async () => {
    server.held = [];
    const t = await tabs({ staleTime: 60_000 }, { wait: false });
    await pause(200);
    await eventually(() => expect([t.last().shared, t.last().b]).toEqual(["pending fetching -", "pending fetching -"]));
    await eventually(() => expect(t.sent("s")).toBe(1));
    expect([badgeOf(t.q.shared()), badgeOf(t.q.b())]).toEqual(["fetching", "fetching"]);
    expect([t.q.shared().getObserversCount(), t.q.b().getObserversCount()]).toEqual([1, 1]);
    await answered();
    await eventually(() => expect([t.last().shared, t.last().b]).toEqual(["success idle 1", "success idle 1"]));
    expect([badgeOf(t.q.shared()), badgeOf(t.q.b())]).toEqual(["fresh", "fresh"]);
    // Tab b refetches: its own query fetches; tab a's runs nothing (its claim is the shared-fetch panel's to show).
    await held(async () => void t.clients.b.refetchQueries({ queryKey: t.q.b().queryKey }));
    await pause(100);
    await eventually(() => expect([badgeOf(t.q.shared()), badgeOf(t.q.b())]).toEqual(["fresh", "fetching"]));
    expect(t.a.snapshot({ url: `${server.base}/s${PATH}` }).claim).toMatchObject({ replicaId: t.b.replicaId, mine: false });
    await answered();
    await eventually(() => expect([t.last().shared, t.last().b]).toEqual(["success idle 2", "success idle 2"]));
    expect([badgeOf(t.q.shared()), badgeOf(t.q.b())]).toEqual(["fresh", "fresh"]);
  });
});
