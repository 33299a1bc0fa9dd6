// @vitest-environment jsdom
/**
 * Invariant 14 as React sees it: a peer that writes malformed records into the shared doc
 * (wrong types, missing fields, hostile values, records over the very keys the panes show) never
 * throws into React — no error boundary is hit, React logs nothing — and the panes keep showing
 * what the valid records say. The store lists each such record as malformed (`store.malformed()`,
 * the devtools' list). test/hostile-records.test.ts shows the same at the store level.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { Boundary } from "../harness/boundary.tsx";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import * as Y from "yjs";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

const URL_OK = URL_A;
const URL_HUNG = `${URL_A}/hung`;
const URL_LATE = `${URL_A}/late`;

function Pane({ name, url }: { name: string; url: string }) {
  const { status, data, claim } = useSharedFetch<{ n: number }>(url);
  return (
    <span data-testid={name}>{`${status} ${data === undefined ? "-" : data.n} ${claim ? (claim.mine ? "mine" : "foreign") : "-"}`}</span>
  );
}

function app(store: SharedFetchStoreWithExtras, errors: unknown[], panes: [string, string][], staleTime = 0) {
  return (
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false, staleTime } } })}>
      <SharedFetchProvider store={store}>
        <Boundary errors={errors}>
          {panes.map(([name, url]) => (
            <Pane key={name} name={name} url={url} />
          ))}
        </Boundary>
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

const text = (name: string) => screen.getByTestId(name).textContent;
/** Real time for TanStack's 0 ms notifications and the store's microtasks. */
const settle = () => act(() => new Promise<void>((r) => setTimeout(r, 30)));

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { n: value };
  return value;
}

/**
 * What a hostile or buggy peer writes over `keys`: records each of which would change what a pane
 * shows were it believed (a newer result, an error on top, a foreign claim), every one malformed.
 * Returned as [table, key, value, expected reason]; s (seq) is huge so that, if valid, each would win.
 */
function garbageFor(keys: { ok: string; hung: string; late: string }): [string, string, unknown, RegExp][] {
  const { ok, hung, late } = keys;
  const claim = { replicaId: "peer", nonce: "n", rev: 2, leaseMs: 600_000 };
  return [
    // wrong types
    [TABLES.results, ok, { rev: "2", data: { n: 666 } }, /^result\.rev /],
    [TABLES.results, ok, "a result", /^result is not a plain object/],
    [TABLES.errors, ok, { rev: 2, message: 503 }, /^error\.message is not a string/],
    [TABLES.errors, ok, { rev: 2, message: "boom", status: "503" }, /^error\.status /],
    [TABLES.claims, ok, { ...claim, leaseMs: "soon" }, /^claim\.leaseMs /],
    [TABLES.claims, hung, { ...claim, replicaId: 7 }, /^claim\.replicaId /],
    [TABLES.beats, "peer", { n: "1" }, /^heartbeat\.n /],
    [TABLES.asks, "peer-asked", "yesterday", /^last-asked time is not a number/],
    // missing fields
    [TABLES.results, ok, { rev: 3 }, /^result has no data/],
    [TABLES.errors, ok, { rev: 3 }, /^error\.message is not a string/],
    [TABLES.claims, ok, { replicaId: "peer", rev: 3, leaseMs: 5000 }, /^claim\.nonce /],
    [TABLES.results, hung, { data: { n: 666 } }, /^result\.rev /],
    // hostile values
    [TABLES.results, ok, { rev: 2 ** 40, data: { n: 666 } }, /^result\.rev /],
    [TABLES.results, ok, { rev: 4, data: { n: Infinity } }, /Infinity or NaN/],
    [TABLES.results, ok, { rev: 5, data: nested(200) }, /nested more than 64 levels/],
    [TABLES.results, hung, { rev: 1, data: { n: 666 }, by: "" }, /^result\.by /],
    [TABLES.errors, hung, { rev: 1, message: "boom", at: -Infinity }, /^error\.at /],
    [TABLES.claims, hung, { ...claim, rev: -1 }, /^claim\.rev /],
    [TABLES.claims, ok, { ...claim, rev: 9, leaseMs: 1e15 }, /^claim\.leaseMs /],
    [TABLES.claims, ok, { ...claim, rev: 9, abandoned: "yes" }, /^claim\.abandoned /],
    [TABLES.claims, late, { ...claim, rev: 1, leaseMs: 1e15 }, /^claim\.leaseMs /],
    [TABLES.results, late, { rev: 1, data: { n: Infinity } }, /Infinity or NaN/],
  ];
}

/** Entries that are not even records, and root items that are not lanes. */
const SHAPELESS: unknown[] = [null, 42, "text", [1, 2], { t: 5, k: "x", v: {}, s: 1 }, { t: TABLES.results, k: "no value", s: 1 }];
const ROOT_JUNK: unknown[] = [null, 7, { not: "a lane" }];

function writeGarbage(peer: Y.Doc, garbage: [string, string, unknown, RegExp][]): void {
  peer.transact(() => {
    peer.getArray<unknown>(ROOT).push(ROOT_JUNK);
    const lane = new Y.Array<unknown>();
    lane.push([...SHAPELESS, ...garbage.map(([t, k, v], i) => ({ t, k, v, s: 1e9 + i }))]);
    peer.getArray<unknown>(ROOT).push([lane]);
  });
}

let consoleError: MockInstance<typeof console.error>;
beforeEach(() => {
  consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  consoleError.mockRestore();
});

describe("invariant 14 in React: a peer's malformed records are ignored, never thrown into React", () => {
  it("invariant 14: panes showing data and pending work keep showing them while a peer writes malformed records over their keys; the store lists every one", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = (call) =>
      call.url === URL_OK ? { status: 200, body: { n: 1 } } : call.url === URL_LATE ? { status: 200, body: { n: 3 } } : undefined;
    const errors: unknown[] = [];
    render(
      <>
        {app(a!, errors, [
          ["a-ok", URL_OK],
          ["a-hung", URL_HUNG],
        ])}
        {app(b!, errors, [["b-ok", URL_OK]])}
      </>,
    );
    await waitFor(() => expect(text("a-ok")).toBe("success 1 -"));
    await waitFor(() => expect(text("a-hung")).toBe("pending - mine"));
    await waitFor(() => expect(text("b-ok")).toBe("success 1 -"));
    const calls = c.host.calls.length;
    expect(c.host.calls.map((call) => call.url).sort()).toEqual([URL_OK, URL_HUNG]);

    const keys = { ok: a!.keyOf({ url: URL_OK }), hung: a!.keyOf({ url: URL_HUNG }), late: a!.keyOf({ url: URL_LATE }) };
    const garbage = garbageFor(keys);
    const peer = new Y.Doc();
    await act(async () => {
      c.net.add(peer);
      // Not thrown into the peer's (the writer's) transaction either.
      expect(() => writeGarbage(peer, garbage)).not.toThrow();
    });
    await settle();
    await settle();

    // Nothing reached React as an exception; the panes show what the valid records say.
    expect(errors).toEqual([]);
    expect(screen.queryByTestId("boundary")).toBeNull();
    expect(text("a-ok")).toBe("success 1 -");
    expect(text("b-ok")).toBe("success 1 -");
    expect(text("a-hung")).toBe("pending - mine");
    for (const store of [a!, b!]) {
      expect(store.snapshot({ url: URL_OK })).toEqual({ status: "success", data: { n: 1 } });
      expect(store.snapshot({ url: URL_HUNG })).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: false } });
      // Every malformed record is listed (for the devtools), each with the reason it was refused.
      const listed = store.malformed();
      expect(listed).toHaveLength(ROOT_JUNK.length + SHAPELESS.length + garbage.length);
      expect(listed.filter((m) => m.map === "lanes")).toHaveLength(ROOT_JUNK.length + SHAPELESS.length);
      for (const [table, key, , reason] of garbage) {
        expect(listed).toContainEqual(expect.objectContaining({ map: table, key, reason: expect.stringMatching(reason) }));
      }
      expect(store.inspect().malformed).toHaveLength(listed.length);
    }
    // The garbage started no work: no refetch, no takeover.
    expect(c.host.calls).toHaveLength(calls);

    // A pane mounted now over a key whose only records are garbage fetches and shows the real data.
    render(app(a!, errors, [["a-late", URL_LATE]]));
    await waitFor(() => expect(text("a-late")).toBe("success 3 -"));
    // The hung request answers at last: its pane shows it.
    await act(async () => c.host.calls.find((call) => call.url === URL_HUNG)!.respond(200, { n: 2 }));
    await waitFor(() => expect(text("a-hung")).toBe("success 2 -"));
    await settle();
    expect(errors).toEqual([]);
    expect(consoleError).not.toHaveBeenCalled();
    c.destroy();
  });

  it("invariant 14: a replica whose doc arrives already holding malformed records renders the good result and no error", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await a!.ensure({ url: URL_OK });
    const garbage = garbageFor({ ok: a!.keyOf({ url: URL_OK }), hung: "other-1", late: "other-2" });
    writeGarbage(c.docOf(a!), garbage);
    // A reload: a new replica loads the doc with the garbage in it, then renders the key.
    const reloaded = c.join({}, c.docOf(a!));
    expect(reloaded.malformed()).toHaveLength(ROOT_JUNK.length + SHAPELESS.length + garbage.length);
    const errors: unknown[] = [];
    // staleTime Infinity: the pane shows the recorded result as it is, with no revalidation.
    render(app(reloaded, errors, [["r-ok", URL_OK]], Infinity));
    await waitFor(() => expect(text("r-ok")).toBe("success 1 -"));
    await settle();
    expect(errors).toEqual([]);
    expect(c.host.calls).toHaveLength(1); // read from the doc, not fetched again
    expect(consoleError).not.toHaveBeenCalled();
    c.destroy();
  });
});
