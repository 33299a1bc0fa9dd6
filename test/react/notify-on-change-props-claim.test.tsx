// @vitest-environment jsdom
/**
 * notifyOnChangeProps given as a list says alone what renders a pane, as TanStack's
 * shouldNotifyListeners does (a list turns property tracking off): `claim` and
 * `isFetchingAnywhere` render it only when listed, whether the pane reads them or not. Without a
 * list, the pane renders for the claim once it reads it (tracked).
 */
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";

type Seen = { n: number | undefined; claim: string };
type Props = ("data" | "claim" | "isFetchingAnywhere" | "status")[] | undefined;

function Pane({ props, readClaim, log }: { props: Props; readClaim: boolean; log: Seen[] }) {
  const q = useSharedFetch<{ n: number }>(URL_A, { staleTime: 60_000, notifyOnChangeProps: props });
  const claim = readClaim ? (q.claim ? (q.claim.mine ? "mine" : "foreign") : "-") : "unread";
  log.push({ n: q.data?.n, claim });
  return <span data-testid="n">{q.data ? q.data.n : "none"}</span>;
}

const settle = () => act(() => new Promise((r) => setTimeout(r, 20)));

afterEach(cleanup);

/** Pane b shows { n: 1 }; then replica a refreshes the key: a claim, then { n: 2 }. */
async function renders(props: Props, readClaim: boolean, client?: QueryClient): Promise<Seen[]> {
  const c = cluster(2, { settleMs: 0 });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const req = { url: URL_A };
  const log: Seen[] = [];
  render(app(b, <Pane props={props} readClaim={readClaim} log={log} />, client));
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
  await waitFor(() => expect(screen.getByTestId("n").textContent).toBe("1"));
  await settle();
  log.length = 0;
  a.refetch(req).catch(() => {});
  await waitFor(() => expect(c.host.calls).toHaveLength(2));
  await waitFor(() => expect(b.snapshot(req).claim?.mine).toBe(false));
  await settle();
  await act(async () => c.host.calls[1]!.respond(200, { n: 2 }));
  await waitFor(() => expect(screen.getByTestId("n").textContent).toBe("2"));
  await settle();
  return log;
}

describe("notifyOnChangeProps as a list decides the claim's renders (TanStack's shouldNotifyListeners)", () => {
  it("['data'], the pane reading claim: no render for another replica's claim, one for its data", async () => {
    expect(await renders(["data"], true)).toEqual([{ n: 2, claim: "-" }]);
  });

  it("['data'], the pane not reading claim: one render, for the data", async () => {
    expect(await renders(["data"], false)).toEqual([{ n: 2, claim: "unread" }]);
  });

  it("['data', 'claim'], the pane not reading claim: rendered for the claim too", async () => {
    expect(await renders(["data", "claim"], false)).toEqual([
      { n: 1, claim: "unread" },
      { n: 2, claim: "unread" },
    ]);
  });

  it("['isFetchingAnywhere']: rendered for the claim, and for its end with the data", async () => {
    const log = await renders(["isFetchingAnywhere"], true);
    expect(log[0]).toEqual({ n: 1, claim: "foreign" });
    expect(log.at(-1)).toEqual({ n: 2, claim: "-" });
  });

  it("tracked (no list), the pane reading claim: rendered for the claim, then the data", async () => {
    expect(await renders(undefined, true)).toEqual([
      { n: 1, claim: "foreign" },
      { n: 2, claim: "-" },
    ]);
  });

  it("tracked, the pane not reading claim: one render, for the data", async () => {
    expect(await renders(undefined, false)).toEqual([{ n: 2, claim: "unread" }]);
  });

  it("['data'] as the QueryClient's default, the pane reading claim: no render for the claim (TanStack's own precedence)", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { notifyOnChangeProps: ["data"] } } });
    expect(await renders(undefined, true, client)).toEqual([{ n: 2, claim: "-" }]);
  });

  it("['data'] as its key's setQueryDefaults, the pane reading claim: no render for the claim", async () => {
    const client = new QueryClient();
    client.setQueryDefaults(["shared-fetch"], { notifyOnChangeProps: ["data"] });
    expect(await renders(undefined, true, client)).toEqual([{ n: 2, claim: "-" }]);
  });
});
