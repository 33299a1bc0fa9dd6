// @vitest-environment jsdom
/**
 * The Keys tab filtered by replica: "what is tab B doing?" answered as the keys whose claim B holds
 * or waits on (invariant 11: a claim's request goes on for its waiters, so a waiter's keys are its
 * work too). Without the filter, 200 keys across 5 replicas left the user to read every row's holder.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { createDevtoolsModel, queryKeys } from "../../devtools/index.ts";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

const URL_C = `${URL_A}/c`;

/** A's request for URL_A in flight with B waiting on it, C's request for URL_C in flight: nobody answered. */
async function threeReplicas() {
  const presence = linkedPresence(3);
  const c = cluster(0, { settleMs: 0 });
  const [a, b, cc] = presence.all.map((awareness) => c.join({ awareness }));
  c.host.auto = () => undefined;
  a!.ensure({ url: URL_A }).catch(() => {});
  await vi.waitFor(() => expect(c.host.calls).toHaveLength(1));
  cc!.ensure({ url: URL_C }).catch(() => {});
  await vi.waitFor(() => expect(c.host.calls).toHaveLength(2));
  b!.ensure({ url: URL_A }).catch(() => {});
  await vi.waitFor(() => expect(a!.inspect().keys.find((k) => k.claim?.waiters)?.claim?.waiters).toEqual([b!.replicaId]));
  await vi.waitFor(() => expect(a!.inspect().keys).toHaveLength(2));
  return { a: a!, b: b!, c: cc!, presence };
}

const labels = () => screen.getAllByTestId("key-row").map((r) => within(r).getByRole("rowheader").textContent);

describe("devtools Keys tab: filter by replica (holder or waiter of the key's claim, invariant 11)", () => {
  it("queryKeys keeps the keys a replica holds a claim on or waits on; no replica given keeps them all", async () => {
    const { a, b, c, presence } = await threeReplicas();
    const model = createDevtoolsModel(a, { awareness: presence.all[0]!, minNotifyIntervalMs: 0 });
    onTestFinished(() => model.destroy());
    const rows = model.getSnapshot().keys;
    const shown = (replica?: string) => queryKeys(rows, { status: "all", search: "", sort: "request", replica }).map((r) => r.label);
    expect(shown()).toEqual([`GET ${URL_A}`, `GET ${URL_C}`]);
    expect(shown(a.replicaId)).toEqual([`GET ${URL_A}`]);
    expect(shown(b.replicaId)).toEqual([`GET ${URL_A}`]);
    expect(shown(c.replicaId)).toEqual([`GET ${URL_C}`]);
    expect(shown("nobody")).toEqual([]);
  });

  it("the Replica select filters the rows; a replica's keys button in the Replicas tab opens the Keys tab filtered to it, focus on the Keys tab", async () => {
    const { a, b, c, presence } = await threeReplicas();
    render(<SharedFetchDevtoolsPanel store={a} awareness={presence.all[0]!} />);
    await waitFor(() => expect(labels()).toEqual([`GET ${URL_A}`, `GET ${URL_C}`]));
    const select = screen.getByRole("combobox", { name: "Replica" }) as HTMLSelectElement;
    expect(select.value).toBe("");
    await waitFor(() => expect([...select.options].map((o) => o.value).sort()).toEqual(["", a.replicaId, b.replicaId, c.replicaId].sort()));
    fireEvent.change(select, { target: { value: b.replicaId } });
    expect(labels()).toEqual([`GET ${URL_A}`]);
    expect(screen.getByTestId("shown").textContent).toBe("1 key");
    fireEvent.change(select, { target: { value: c.replicaId } });
    expect(labels()).toEqual([`GET ${URL_C}`]);
    fireEvent.change(select, { target: { value: "" } });
    expect(labels()).toHaveLength(2);

    fireEvent.click(screen.getByRole("tab", { name: /^Replicas/ }));
    const button = screen.getByRole("button", { name: `Keys of ${b.replicaId}` });
    expect(button.tagName).toBe("BUTTON"); // a native button: Enter and Space press it
    fireEvent.click(button);
    const keysTab = screen.getByRole("tab", { name: /^Keys/ });
    expect(keysTab.getAttribute("aria-selected")).toBe("true");
    expect(document.activeElement).toBe(keysTab);
    expect((screen.getByRole("combobox", { name: "Replica" }) as HTMLSelectElement).value).toBe(b.replicaId);
    expect(labels()).toEqual([`GET ${URL_A}`]);

    // B goes: its waits end, the filter stays on it (still selectable) and shows nothing rather than "any".
    await act(async () => b.destroy());
    await waitFor(() => expect(screen.queryAllByTestId("key-row")).toHaveLength(0), { timeout: 5000 });
    expect((screen.getByRole("combobox", { name: "Replica" }) as HTMLSelectElement).value).toBe(b.replicaId);
  }, 30_000);
});
