// @vitest-environment jsdom
/**
 * Devtools Keys: a claim whose claimant retries (README, "Retries run inside the claim") shows its
 * retries by its holder, "retry 2 · HTTP 503 Service Unavailable", in the claimant's panel and in
 * the panel of a replica that joined it, as `store.inspect()` gives the claim's recorded count and
 * last failure (`claim.failed`); nothing once the claim is finished. A peer's malformed count shows
 * nothing and throws nothing (invariant 14); a peer's long message is cut, whole in the title.
 */
import { act, cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);
afterEach(() => vi.useRealTimers());

const FAILURE = `HTTP 503 Service Unavailable from GET ${URL_A}`;

/** The holder cell's retries line in the panel rendered into `root`, or null. */
const retries = (root: HTMLElement) => within(root).queryByTestId("retries");

describe("devtools: a claim's retries by its holder", () => {
  it("the claimant's and a joined replica's panels show each retry and the last failure, then nothing once the error is recorded", async () => {
    useFakeClock();
    const c = cluster(0, { settleMs: 0 });
    const a = c.join({ fetch: c.host.fetchAs("a") });
    const b = c.join({ fetch: c.host.fetchAs("b") });
    c.host.auto = () => ({ status: 503, body: "busy", delayMs: 100 });
    const opts = { retry: 2, retryDelay: 1000 };
    const outcomes = [background(a.ensure({ url: URL_A }, opts))];
    await tick(10);
    outcomes.push(background(b.ensure({ url: URL_A }, opts)));
    const panels = [a, b].map((store) => render(<SharedFetchDevtoolsPanel store={store} />).container);
    await act(() => tick(50));
    // In flight, nothing failed yet.
    for (const panel of panels) expect(retries(panel)).toBeNull();
    for (const n of [1, 2]) {
      // Attempts fail 100 ms after they are sent, each retry 1 s after a failure: 100, 1200, 2300 ms.
      await act(() => tick(n === 1 ? 100 : 1050));
      for (const store of [a, b]) expect(store.inspect().keys[0]!.claim!.failed).toEqual({ n, message: FAILURE, status: 503 });
      for (const panel of panels) {
        const line = retries(panel)!;
        expect(line.textContent).toBe(`retry ${n} · HTTP 503 Service Unavailable`);
        expect(line.title).toBe(FAILURE);
      }
    }
    await act(() => tick(1200));
    for (const outcome of outcomes) expect((await outcome).status).toBe("error");
    expect(c.host.calls.map((call) => call.from)).toEqual(["a", "a", "a"]);
    for (const panel of panels) expect(retries(panel)).toBeNull();
  });

  const peerClaim = (failed: unknown) => {
    const doc = new Y.Doc();
    doc.transact(() => {
      const lane = new Y.Array<unknown>();
      const claim = { replicaId: "peer", nonce: "n1", rev: 1, leaseMs: 60_000, at: 1, label: "GET https://x.test/a", failed };
      lane.push([{ t: TABLES.claims, k: "c".repeat(64), v: claim, s: 1 }]);
      doc.getArray<unknown>(ROOT).push([lane]);
    });
    return createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
  };

  for (const [what, failed] of [
    ["a count that is not a revision", { n: "2", message: "HTTP 503 Service Unavailable from GET https://x.test/a", status: 503 }],
    ["no message", { n: 2, status: 503 }],
    ["not an object", "retry 2"],
  ] as const)
    it(`a peer's claim with a malformed count (${what}): no retries shown, the claim still pending, nothing thrown`, async () => {
      const store = peerClaim(failed);
      const { container } = render(<SharedFetchDevtoolsPanel store={store} />);
      await act(async () => {});
      expect(store.inspect().keys[0]!.claim!.failed).toBeUndefined();
      expect(within(container).getByTestId("key-row").dataset.status).toBe("pending");
      expect(retries(container)).toBeNull();
      store.destroy();
    });

  it("a peer's long failure is cut to 80 characters, its whole message in the title", async () => {
    const message = `GET https://x.test/a failed: ${"the connection was reset ".repeat(8)}`;
    const store = peerClaim({ n: 1, message });
    render(<SharedFetchDevtoolsPanel store={store} />);
    await act(async () => {});
    const line = screen.getByTestId("retries");
    expect(line.textContent).toBe(`retry 1 · ${message.slice(0, 79)}…`);
    expect(line.title).toBe(message);
    store.destroy();
  });
});
