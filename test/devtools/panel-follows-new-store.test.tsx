// @vitest-environment jsdom
/**
 * A logout and a login in one provider: the app destroys its store and gives the panel a new one
 * on the same doc and presence. The panel follows the new store; what it kept of the old one's
 * replicas and keys must not hide the new one's (a Replica filter on the old store's replica left
 * the Keys tab empty under "all 2").
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { linkedAwareness } from "./awareness.ts";

afterEach(cleanup);
const URL_A = "https://api.example.test/items";
const answer = () => Promise.resolve(new Response(JSON.stringify({ ok: 1 }), { headers: { "content-type": "application/json" } }));

/** A store as an app makes one per signed-in user, on the doc and presence that outlive it. */
function session(doc: Y.Doc, awareness: ReturnType<typeof linkedAwareness>["all"][number], identity: string): SharedFetchStoreWithExtras {
  const store = createSharedFetchStore({ doc, awareness, fetch: answer, settleMs: 0, identity });
  onTestFinished(() => store.destroy());
  return store;
}

describe("the panel after a logout and a login in the same provider (a store destroyed, a new one given)", () => {
  it("Keys: a Replica filter chosen on the old store's replica is dropped; the new store's keys are listed", async () => {
    const doc = new Y.Doc();
    const presence = linkedAwareness(1);
    onTestFinished(() => presence.destroy());
    const alice = session(doc, presence.all[0]!, "alice");
    const view = render(<SharedFetchDevtoolsPanel store={alice} awareness={presence.all[0]!} initialTab="replicas" />);
    await act(() => alice.ensure({ url: URL_A }));
    // "keys" on the Replicas tab's own row: the Keys tab filtered to alice's replica.
    await waitFor(() => expect(screen.getAllByRole("button", { name: /keys/i }).length).toBeGreaterThan(0));
    fireEvent.click(screen.getAllByRole("button", { name: /keys/i })[0]!);
    const select = () => screen.getByRole("combobox", { name: "Replica" }) as HTMLSelectElement;
    expect(select().value).toBe(alice.replicaId);

    alice.destroy();
    const bob = session(doc, presence.all[0]!, "bob");
    view.rerender(<SharedFetchDevtoolsPanel store={bob} awareness={presence.all[0]!} initialTab="replicas" />);
    await act(() => bob.ensure({ url: `${URL_A}/bob` }));
    await waitFor(() => expect(screen.getByTestId("count-success").textContent).toBe("success 2"));
    expect(select().value).toBe("");
    expect(screen.getAllByTestId("key-row").map((r) => r.textContent)).toEqual(
      expect.arrayContaining([expect.stringContaining(`${URL_A}/bob`)]),
    );
    expect(screen.getByTestId("shown").textContent).toMatch(/^2 keys/);
  });

  it("Timeline: its Replica filter chosen on the old store's replica is dropped; the new store's entries are listed", async () => {
    const doc = new Y.Doc();
    const presence = linkedAwareness(1);
    onTestFinished(() => presence.destroy());
    const alice = session(doc, presence.all[0]!, "alice");
    const view = render(<SharedFetchDevtoolsPanel store={alice} awareness={presence.all[0]!} initialTab="timeline" />);
    await act(() => alice.ensure({ url: URL_A }));
    const select = () => screen.getByRole("combobox", { name: "Replica" }) as HTMLSelectElement;
    await waitFor(() => expect(screen.getAllByTestId("timeline-entry").length).toBeGreaterThan(0));
    fireEvent.change(select(), { target: { value: alice.replicaId } });

    alice.destroy();
    const bob = session(doc, presence.all[0]!, "bob");
    view.rerender(<SharedFetchDevtoolsPanel store={bob} awareness={presence.all[0]!} initialTab="timeline" />);
    await act(() => bob.ensure({ url: `${URL_A}/bob` }));
    expect(select().value).toBe("");
    await waitFor(() =>
      expect(screen.getAllByTestId("timeline-entry").map((e) => e.textContent)).toEqual(
        expect.arrayContaining([expect.stringContaining(`wrote the result of GET ${URL_A}/bob`)]),
      ),
    );
  });

  it("Timeline: says once, in each panel showing it, that the panel now inspects a new store and the old one was destroyed", async () => {
    const doc = new Y.Doc();
    const presence = linkedAwareness(1);
    onTestFinished(() => presence.destroy());
    const alice = session(doc, presence.all[0]!, "alice");
    // Two panels on one store (the floating one and a TanStack Devtools plugin) share its model.
    const panels = (store: SharedFetchStoreWithExtras) => (
      <>
        <SharedFetchDevtoolsPanel store={store} awareness={presence.all[0]!} initialTab="timeline" />
        <SharedFetchDevtoolsPanel store={store} awareness={presence.all[0]!} initialTab="timeline" />
      </>
    );
    const view = render(panels(alice));
    await act(() => alice.ensure({ url: URL_A }));

    alice.destroy();
    const bob = session(doc, presence.all[0]!, "bob");
    view.rerender(panels(bob));
    const told = () => screen.getAllByTestId("timeline-entry").filter((e) => e.dataset.type === "inspecting");
    await waitFor(() => expect(told()).toHaveLength(2));
    expect(told()[0]!.textContent).toContain(
      `this panel now inspects a new store (this tab); the one before, ${alice.replicaId.slice(0, 8)}`,
    );
    expect(told()[0]!.textContent).toContain("was destroyed");
  });
});
