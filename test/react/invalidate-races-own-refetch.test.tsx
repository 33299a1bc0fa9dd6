// @vitest-environment jsdom
/**
 * The devtools' invalidate (a third replica's, no QueryClient of these tabs) lands while tab B's
 * refetch, sent before it, is in flight. Its result is recorded stale for every replica
 * (test/devtools/invalidate-races-result.test.ts): both tabs show it, and both know it is stale,
 * the tab whose own query function brought it home too (it took the answer as fresh: its next
 * mount or focus fetched nothing for a minute).
 */
import { cleanup, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { pause, PREFIX, text, twoPanesShowingOne } from "../harness/two-panes.tsx";
import { URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

describe("devtools invalidate racing a tab's own refetch: the answer sent before it is shown stale", () => {
  it("both tabs show tab B's result, and both hold it stale", async () => {
    const { c, clientA, clientB } = await twoPanesShowingOne();
    const devtools = c.join();
    await pause(20);
    void clientB.refetchQueries({ queryKey: PREFIX });
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    expect(invalidateKey(devtools, devtools.keyOf({ url: URL_A }))).toMatchObject({ ok: true, doc: true });
    await pause(20);
    c.host.calls[1]!.respond(200, { n: 2 });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
    await pause(20);
    for (const client of [clientA, clientB]) expect(client.getQueryCache().findAll({ queryKey: PREFIX })[0]!.isStale()).toBe(true);
    expect(c.host.calls).toHaveLength(2);
  });
});
