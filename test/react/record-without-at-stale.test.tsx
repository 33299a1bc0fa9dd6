// @vitest-environment jsdom
/**
 * README, "Stale-while-revalidate across reloads": "Records from before `at` existed count as
 * stale." A reload finds, in its doc, a result an older version wrote (no `at`): the pane shows it
 * at once and revalidates it with one request, whatever its staleTime (a minute here), then shows
 * the new data. The control, the same record dated now, is fresh: shown, and no request.
 */
import { useQuery } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { openDocRecords } from "../../src/core/doc-records.ts";
import { createSharedFetchStore, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";
import { pause } from "../harness/two-panes.tsx";

afterEach(cleanup);

/** What a reloaded pane shows first, and the requests it sends, over a doc holding `{ n: 0 }` dated `at`. */
async function reloadOver(at: number | undefined) {
  const keyOf = createSharedFetchStore({ doc: new Y.Doc(), locks: null });
  const persisted = new Y.Doc();
  const records = openDocRecords(persisted, () => null);
  records.results.set(keyOf.keyOf(URL_A), { rev: 1, data: { n: 0 }, ...(at === undefined ? {} : { at }) });
  records.destroy();
  keyOf.destroy();

  const c = cluster(0, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const store: SharedFetchStoreWithExtras = c.join({}, persisted);
  const shown: string[] = [];
  function Pane() {
    const q = useQuery(sharedQueryOptions<{ n: number }>(store, URL_A, { staleTime: 60_000 }));
    shown.push(q.data ? String(q.data.n) : q.status);
    return <span data-testid="pane">{`${q.data?.n}/${q.fetchStatus}`}</span>;
  }
  render(app(store, <Pane />));
  return { c, shown };
}

describe("README: records from before `at` existed count as stale", () => {
  it("a result with no `at`, staleTime 60 s: shown at the first render, then revalidated with one request", async () => {
    const { c, shown } = await reloadOver(undefined);
    expect(shown[0]).toBe("0");
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("1/idle"));
    expect(c.host.calls).toHaveLength(1);
  });

  it("control: the same result dated now is fresh: shown, no request", async () => {
    const { c, shown } = await reloadOver(Date.now());
    expect(shown[0]).toBe("0");
    await pause(300);
    expect(screen.getByTestId("pane").textContent).toBe("0/idle");
    expect(c.host.calls).toHaveLength(0);
  });
});
