// @vitest-environment jsdom
/**
 * A disabled action says why (its title, which is also its accessible description, and a line
 * under the actions, which a keyboard or touch user reads: a title shows only to a mouse): before, only
 * "refetch" did, and "evict record", "release my claim", "copy JSON" sat greyed with no word. On a
 * destroyed store every writing action is disabled and says the store writes nothing more, rather
 * than being offered and refusing on click.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";

afterEach(cleanup);
const KEY = "k".repeat(64);

function peerClaim(doc: Y.Doc): void {
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    lane.push([
      { t: TABLES.claims, k: KEY, v: { replicaId: "peer", nonce: "n1", rev: 1, leaseMs: 5000, label: "GET https://x.test/a" }, s: 1 },
    ]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
}

const button = (name: string) => within(screen.getByTestId("key-details")).getByRole("button", { name }) as HTMLButtonElement;

describe("devtools: a disabled action says why", () => {
  it("a peer's claim with nothing recorded: each greyed action names what it lacks", () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
    peerClaim(doc);
    render(<SharedFetchDevtoolsPanel store={store} />);
    fireEvent.click(screen.getByRole("button", { name: "Details of GET https://x.test/a" }));
    const why = Object.fromEntries(
      ["refetch", "invalidate", "release my claim", "evict record", "copy JSON", "show JSON"].map((name) => {
        const b = button(name);
        return [name, b.disabled ? b.title : "(enabled)"];
      }),
    );
    expect(why).toEqual({
      refetch: "Only a replica that asked for the key knows its request",
      invalidate: "Nothing recorded to mark stale, and no QueryClient given",
      "release my claim": "The claim is another replica's (peer)",
      "evict record": "No record to evict",
      "copy JSON": "No result recorded",
      "show JSON": "No result recorded",
    });
    // The titles show only to a mouse, and a disabled button takes no focus: a keyboard or touch
    // user reads the same reasons written out under the actions, one line per reason.
    expect(screen.getAllByTestId("refused").map((line) => line.textContent)).toEqual([
      "refetch unavailable: Only a replica that asked for the key knows its request",
      "invalidate unavailable: Nothing recorded to mark stale, and no QueryClient given",
      "release my claim unavailable: The claim is another replica's (peer)",
      "evict record unavailable: No record to evict",
      "copy JSON, show JSON unavailable: No result recorded",
    ]);
    store.destroy();
  });

  it("a destroyed store: every writing action is disabled and says the store writes nothing more", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
    peerClaim(doc);
    render(<SharedFetchDevtoolsPanel store={store} />);
    fireEvent.click(screen.getByRole("button", { name: "Details of GET https://x.test/a" }));
    await act(async () => store.destroy());
    for (const name of ["refetch", "invalidate", "release my claim", "evict record"]) {
      expect(button(name).disabled, name).toBe(true);
      expect(button(name).title, name).toBe("This replica's store is destroyed: it writes nothing more");
    }
    expect(screen.getAllByTestId("refused")[0]!.textContent).toBe(
      "refetch, invalidate, release my claim, evict record unavailable: This replica's store is destroyed: it writes nothing more",
    );
  });

  it("a destroyed store: the Malformed tab's evict is disabled, its reason written above the list", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
    doc.transact(() => {
      const lane = new Y.Array<unknown>();
      lane.push([{ t: TABLES.results, k: KEY, v: { rev: 1e300, data: { a: 1 } }, s: 1 }]);
      doc.getArray<unknown>(ROOT).push([lane]);
    });
    render(<SharedFetchDevtoolsPanel store={store} />);
    fireEvent.click(screen.getByRole("tab", { name: /Malformed/ }));
    await act(async () => store.destroy());
    const list = screen.getByRole("list", { name: "Malformed records" });
    expect((within(list).getByRole("button", { name: "evict" }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/^evict unavailable: /).textContent).toBe(
      "evict unavailable: This replica's store is destroyed: it writes nothing more",
    );
  });

  it("a destroyed store whose malformed records offer no evict (a claim) says nothing of an evict it does not show", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("no request expected")) });
    doc.transact(() => {
      const lane = new Y.Array<unknown>();
      lane.push([{ t: TABLES.claims, k: KEY, v: { replicaId: 42 }, s: 1 }]);
      doc.getArray<unknown>(ROOT).push([lane]);
    });
    render(<SharedFetchDevtoolsPanel store={store} />);
    fireEvent.click(screen.getByRole("tab", { name: /Malformed/ }));
    await act(async () => store.destroy());
    const list = screen.getByRole("list", { name: "Malformed records" });
    expect(
      within(list)
        .getAllByTestId("malformed-row")
        .map((row) => row.dataset.map),
    ).toEqual(["claims"]);
    expect(within(list).queryByRole("button", { name: "evict" })).toBeNull();
    expect(screen.queryByText(/evict unavailable/)).toBeNull();
  });
});
