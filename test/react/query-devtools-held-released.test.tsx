// @vitest-environment jsdom
/**
 * The queries TanStack's Query devtools hold in a state of theirs (Trigger Loading, Trigger Error)
 * are kept by the bridge of their shared query's store (push.ts devtoolsHeld) only while that bridge
 * hears of them: a plain query of the same QueryClient, held by the devtools, is not kept, so a
 * cleared or dropped QueryClient is not kept alive by the page (its queries, cache and data).
 */
import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions } from "../../src/index.ts";
import { devtoolsHeld } from "../../src/react/push.ts";
import { queryDevtools } from "../harness/query-devtools-actions.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(() => devtoolsHeld.clear());

describe("queries held by the Query devtools (devtoolsHeld)", () => {
  it("a plain query held beside a shared one is let go with the client's queries, whichever the cache removes first", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const [store] = c.stores;
    const client = new QueryClient();
    await client.fetchQuery(sharedQueryOptions(store!, URL_A));
    client.setQueryData(["plain"], { n: 1 });
    const plain = client.getQueryCache().find({ queryKey: ["plain"], exact: true })!;
    queryDevtools.error(client, plain as never);
    client.clear(); // the shared query goes first: its bridge is then disposed
    expect(devtoolsHeld.size).toBe(0);
  });

  it("a held shared query is let go when it is removed", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const [store] = c.stores;
    const client = new QueryClient();
    const options = sharedQueryOptions(store!, URL_A);
    await client.fetchQuery(options);
    const shared = client.getQueryCache().find({ queryKey: options.queryKey, exact: true })!;
    queryDevtools.error(client, shared as never);
    expect([...devtoolsHeld]).toEqual([shared]);
    client.removeQueries({ queryKey: options.queryKey, exact: true });
    expect(devtoolsHeld.size).toBe(0);
  });
});
