// @vitest-environment jsdom
/**
 * A key's details, opened while the key changes: in a list of many keys only the rows in view are
 * rendered, so a row whose key moved in the sort (its claim done, it went from pending to success)
 * or that the user scrolled past left the DOM, and came back with its details closed. TanStack's
 * devtools keep a query selected whatever the list does; the panel keeps a key's details open.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { background, cluster, URL_A } from "../harness/replicas.ts";
import { seedKeys } from "./seed.ts";

const req = { url: URL_A };
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });
const rowOf = (key: string) => screen.queryAllByTestId("key-row").find((r) => r.dataset.key === key);
afterEach(cleanup);

describe("a key's details stay open while the key and the list change", () => {
  it("sorted by status, a pending key whose result comes moves out of view and back: its details are still open", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    // 25 keys with an error beside their result sort between the pending key and its success.
    seedKeys(c.docOf(a!), 100, { errorEvery: 4 });
    render(<SharedFetchDevtoolsPanel store={a!} />);
    const p = background(b!.ensure(req)); // another replica's request, in flight
    const key = a!.keyOf(req);
    await eventually(() => expect(rowOf(key)?.dataset.status).toBe("pending"));
    fireEvent.change(screen.getByRole("combobox", { name: /Sort by/ }), { target: { value: "status" } });
    expect(screen.getAllByTestId("key-row")[0]!.dataset.key).toBe(key);
    fireEvent.click(within(rowOf(key)!).getByRole("button", { name: `Details of GET ${URL_A}` }));
    expect(screen.getByTestId("key-details").textContent).toContain(`key ${key}`);

    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await act(() => p);
    // Success sorts after the 25 errors: beyond the rows in view (jsdom: a 480 px viewport).
    await eventually(() => expect(rowOf(key)).toBeUndefined());
    const scroller = screen.getByRole("region", { name: "Keys list" });
    Object.defineProperty(scroller, "scrollTop", { value: 25 * 40, configurable: true });
    fireEvent.scroll(scroller);
    const row = rowOf(key)!;
    expect(row.dataset.status).toBe("success");
    expect(
      within(row)
        .getByRole("button", { name: `Details of GET ${URL_A}` })
        .getAttribute("aria-expanded"),
    ).toBe("true");
    expect(screen.getByTestId("key-details").textContent).toContain(`key ${key}`);
  }, 30_000);
});
