// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { StrictMode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtools } from "../../devtools/index.ts";
import { ROOT } from "../../src/internals.ts";
import { background, cluster, URL_A } from "../harness/replicas.ts";

const req = { url: URL_A };
/** Lets the stores' microtasks and React's updates run. */
const flush = () => act(async () => {});
const keyRows = () => screen.queryAllByTestId("key-row");

afterEach(cleanup);

describe("<SharedFetchDevtools>", () => {
  it("opens and closes from its toggle; tabs switch views and say which is selected", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a] = c.stores;
    render(<SharedFetchDevtools store={a!} />);
    const toggle = screen.getByRole("button", { name: "shared-fetch" });
    expect(toggle).toHaveProperty("ariaExpanded", "false");
    expect(screen.queryByRole("tablist")).toBeNull();

    fireEvent.click(toggle);
    expect(toggle).toHaveProperty("ariaExpanded", "true");
    const tabs = within(screen.getByRole("tablist")).getAllByRole("tab");
    expect(tabs.map((t) => [t.textContent, t.getAttribute("aria-selected")])).toEqual([
      ["Keys (0)", "true"],
      ["Replicas (1)", "false"],
      ["Events (0)", "false"],
      ["Malformed (0)", "false"],
    ]);
    expect(screen.getByRole("tabpanel").textContent).toMatch(/No keys/);

    fireEvent.click(screen.getByRole("tab", { name: /^Events/ }));
    expect(screen.getByRole("tab", { name: /^Events/ }).getAttribute("aria-selected")).toBe("true");
    expect(screen.getByRole("tab", { name: /^Keys/ }).getAttribute("aria-selected")).toBe("false");
    fireEvent.keyDown(screen.getByRole("tab", { name: /^Events/ }), { key: "ArrowRight" });
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: /^Malformed/ }));
    expect(screen.getByRole("tabpanel").getAttribute("aria-labelledby")).toBe(screen.getByRole("tab", { name: /^Malformed/ }).id);

    fireEvent.click(toggle);
    expect(screen.queryByRole("tablist")).toBeNull();
    c.destroy();
  });

  it("a key row follows the claim from a foreign holder to me to none, then shows the result rev", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    render(
      <StrictMode>
        <SharedFetchDevtools store={a!} initialIsOpen />
      </StrictMode>,
    );
    background(b!.ensure(req));
    await flush();
    expect(keyRows()).toHaveLength(1);
    const row = () => keyRows()[0]!;
    expect(row().dataset.holder).toBe(b!.replicaId);
    expect(within(row()).getByRole("rowheader").textContent).toMatch(/^GET https:\/\/api\.example\.test\/items/);
    expect(within(row()).getByTestId("holder").textContent).toBe(b!.replicaId.length > 12 ? `${b!.replicaId.slice(0, 11)}…` : b!.replicaId);
    expect(within(row()).getByTestId("claim-state").textContent).toMatch(/rev 1 live/);

    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await flush();
    expect(row().dataset.holder).toBe("none");
    expect(row().dataset.resultRev).toBe("1");
    expect(within(row()).getByTestId("result").textContent).toBe("rev 1 · 7 B");

    background(a!.refetch(req));
    await flush();
    expect(within(row()).getByTestId("holder").textContent).toBe("me");
    await act(async () => c.host.calls[1]!.respond(500, { oops: true }));
    await flush();
    expect(row().dataset.holder).toBe("none");
    expect(within(row()).getByTestId("error").textContent).toMatch(/^rev 2: .*\(HTTP 500\)$/);
    expect(row().dataset.resultRev).toBe("1");

    fireEvent.click(screen.getByRole("tab", { name: /^Events/ }));
    const types = screen.getAllByTestId("event-row").map((r) => r.dataset.type);
    expect(types).toEqual(["settled", "dispatched", "claimed"]);
    c.destroy();
  });

  it("the Replicas tab lists the inspected replica and the holders it sees; Malformed lists bad records", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    render(<SharedFetchDevtools store={a!} initialIsOpen initialTab="replicas" />);
    background(b!.ensure(req));
    await flush();
    const rows = screen.getAllByTestId("replica-row");
    expect(rows.map((r) => [r.dataset.replicaId, r.dataset.present])).toEqual([
      [a!.replicaId, "unknown"],
      [b!.replicaId, "unknown"],
    ]);
    expect(within(rows[0]!).getByRole("rowheader").textContent).toMatch(/\(me\)$/);
    expect(screen.getByText(/No awareness given/)).toBeTruthy();

    fireEvent.click(screen.getByRole("tab", { name: /^Malformed/ }));
    const peer = new Y.Doc();
    c.net.add(peer);
    await act(async () => {
      const lane = new Y.Array<unknown>();
      lane.push([{ t: "claims", k: "k", v: { replicaId: 5 }, s: 1 }]);
      peer.getArray<unknown>(ROOT).push([lane]);
    });
    await flush();
    const bad = screen.getAllByTestId("malformed-row");
    expect(bad.map((r) => r.textContent)).toEqual([expect.stringMatching(/^claims k: claim\.replicaId is not a non-empty string\{"replicaId":5\}$/)]);
    expect(screen.getByRole("tab", { name: /^Malformed/ }).textContent).toBe("Malformed (1)");
    c.destroy();
  });
});
