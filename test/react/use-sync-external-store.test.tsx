// @vitest-environment jsdom
/**
 * README, Usage: "`store.subscribe(req, listener)` + `store.snapshot(req)` fit
 * `useSyncExternalStore`" — without React Query. React requires `getSnapshot` to return the same
 * object until the store changes (else it warns and renders in a loop), and a subscribed listener
 * to hear every change a pane must show: another replica's claim, and the result it records.
 */
import { act, cleanup, render } from "@testing-library/react";
import { useCallback, useSyncExternalStore } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SharedFetchStore } from "../../src/index.ts";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

function Pane({ store, renders }: { store: SharedFetchStore; renders: string[] }) {
  const subscribe = useCallback((listener: () => void) => store.subscribe(req, listener), [store]);
  const snap = useSyncExternalStore(subscribe, () => store.snapshot(req));
  const line = `${snap.status}${snap.claim ? ` (claim: ${snap.claim.mine ? "mine" : "another's"})` : ""}${snap.data ? ` ${JSON.stringify(snap.data)}` : ""}`;
  renders.push(line);
  return <p>{line}</p>;
}

describe("store.subscribe + store.snapshot with React's useSyncExternalStore (README, Usage)", () => {
  beforeEach(useFakeClock);
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it("invariant 8: the pane shows another replica's claim as pending, then its result; snapshots stay cached between changes", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const c = cluster(2, { leaseMs: 1000 });
    const [a, b] = c.stores;
    let answer!: (body: unknown) => void;
    c.host.auto = (call) => void (answer = (body) => call.respond(200, body));
    const renders: string[] = [];
    const view = render(<Pane store={b!} renders={renders} />);
    expect(view.container.textContent).toBe("idle");
    await act(async () => {
      void a!.ensure(req);
      await vi.advanceTimersByTimeAsync(50);
    });
    expect(c.host.calls).toHaveLength(1);
    expect(view.container.textContent).toBe("pending (claim: another's)");
    // Nothing changed: a re-render reads the cached snapshot, no new render is forced.
    const before = renders.length;
    view.rerender(<Pane store={b!} renders={renders} />);
    expect(renders.length).toBe(before + 1);
    expect(b!.snapshot(req)).toBe(b!.snapshot(req));
    await act(async () => {
      answer({ n: 1 });
      await vi.advanceTimersByTimeAsync(50);
    });
    expect(view.container.textContent).toBe('success {"n":1}');
    expect(renders.length).toBeLessThan(10);
    expect(errors.mock.calls.map((args) => String(args[0]))).not.toContainEqual(expect.stringMatching(/getSnapshot/));
    errors.mockRestore();
    c.destroy();
  });
});
