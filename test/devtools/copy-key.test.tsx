// @vitest-environment jsdom
/**
 * README, "Devtools", Actions (a key's details): "*copy key*". It copies the key itself, the hash
 * `store.keyOf(request)` gives (what the store's records, `store.inspect()` and the end of the
 * key's TanStack queryKey name it by), and says so; copy JSON is pinned by
 * test/devtools/panel-follows.test.tsx.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { sharedQueryKey } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

describe("README, Devtools: copy key", () => {
  it("copies the key of the row's request, as store.keyOf and the end of its queryKey name it", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const req = { url: `${URL_A}?page=2`, headers: { authorization: "Bearer t" } };
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await act(() => a!.ensure(req));
    const copied: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: (t: string) => (copied.push(t), Promise.resolve()) },
      configurable: true,
    });
    render(<SharedFetchDevtoolsPanel store={a!} />);
    await waitFor(() => expect(screen.getAllByTestId("key-row")).toHaveLength(1), { timeout: 10_000 });
    fireEvent.click(screen.getByRole("button", { name: /^Details of GET/ }));
    const details = screen.getByTestId("key-details");
    fireEvent.click(within(details).getByRole("button", { name: "copy key" }));
    await act(async () => {});
    expect(within(details).getByRole("status").textContent).toBe("Key copied.");
    expect(copied).toEqual([a!.keyOf(req)]);
    expect(sharedQueryKey(a!, req).at(-1)).toBe(copied[0]);
  }, 30_000);
});
