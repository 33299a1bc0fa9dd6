// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { StrictMode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtools } from "../../devtools/production.ts";
import * as gated from "../../devtools/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT } from "../../src/internals.ts";
import { background, cluster, URL_A } from "../harness/replicas.ts";
import { seedKeys } from "./seed.ts";

const req = { url: URL_A };
/** Lets the stores' microtasks and React's updates run. */
const flush = () => act(async () => {});
const keyRows = () => screen.queryAllByTestId("key-row");
/** Renders are batched (at most ~10/s): wait for the next one instead of assuming it. */
const eventually = (check: () => void) => waitFor(check, { timeout: 3000, interval: 20 });

afterEach(cleanup);

describe("<SharedFetchDevtools>", () => {
  it("a floating toggle opens the docked panel and its close button closes it; tabs follow arrows, Home and End", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a] = c.stores;
    render(<SharedFetchDevtools store={a!} />);
    fireEvent.click(screen.getByRole("button", { name: "shared-fetch" }));
    const tabs = within(screen.getByRole("tablist")).getAllByRole("tab");
    expect(tabs.map((t) => [t.textContent, t.getAttribute("aria-selected")])).toEqual([
      ["Keys (0)", "true"],
      ["Timeline (0)", "false"],
      ["Replicas (1)", "false"],
      ["Events (0)", "false"],
      ["Malformed (0)", "false"],
    ]);
    expect(screen.getByRole("tabpanel").textContent).toMatch(/No keys/);
    expect(screen.getByRole("separator", { name: "Resize shared-fetch devtools" }).getAttribute("aria-valuenow")).toBe("320");
    fireEvent.keyDown(screen.getByRole("separator"), { key: "ArrowUp" });
    expect(screen.getByRole("separator").getAttribute("aria-valuenow")).toBe("344");

    fireEvent.keyDown(screen.getByRole("tab", { name: /^Keys/ }), { key: "End" });
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: /^Malformed/ }));
    fireEvent.keyDown(document.activeElement!, { key: "ArrowRight" });
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: /^Keys/ }));
    fireEvent.keyDown(document.activeElement!, { key: "ArrowLeft" });
    expect(screen.getByRole("tabpanel").getAttribute("aria-labelledby")).toBe(screen.getByRole("tab", { name: /^Malformed/ }).id);

    fireEvent.click(screen.getByRole("button", { name: "Close shared-fetch devtools" }));
    expect(screen.queryByRole("tablist")).toBeNull();
    expect(screen.getByRole("button", { name: "shared-fetch" })).toBeTruthy();
    // The file's first render loads React and the panel: seconds on a loaded 2-core machine.
  }, 30_000);

  it("a key row follows the claim from a foreign holder to me to none, shows who wrote the result, and an error beside it", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    render(
      <StrictMode>
        <SharedFetchDevtools store={a!} initialIsOpen />
      </StrictMode>,
    );
    background(b!.ensure(req));
    await eventually(() => expect(keyRows()).toHaveLength(1));
    const row = () => keyRows()[0]!;
    expect(row().dataset.holder).toBe(b!.replicaId);
    expect(row().dataset.status).toBe("pending");
    expect(within(row()).getByRole("rowheader").textContent).toBe("GET https://api.example.test/items");
    expect(within(row()).getByTestId("holder").textContent).toMatch(/ · other device$/);
    expect(within(row()).getByTestId("claim-state").textContent).toMatch(/^rev 1 live/);

    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await eventually(() => expect(row().dataset.resultRev).toBe("1"));
    expect(row().dataset.holder).toBe("none");
    expect(within(row()).getByTestId("result").textContent).toMatch(/^rev 1 · 7 B/);
    expect(within(row()).getByTestId("result").textContent).toContain(`by ${b!.replicaId.slice(0, 11)}…`);

    background(a!.refetch(req));
    // Issue 10: where this tab's own attempt is on its way to the request.
    await eventually(() => expect(within(row()).getByTestId("holder").textContent).toBe("me (this tab) · request in flight"));
    expect(within(row()).getByTestId("holder").dataset.phase).toBe("running");
    await act(async () => c.host.calls[1]!.respond(500, { oops: true }));
    await eventually(() => expect(row().dataset.status).toBe("error"));
    // The status once, as the message says it: not "… (HTTP 500)" again; the request once, in the row's header
    // (the whole message in the cell's title).
    expect(within(row()).getByTestId("error").textContent).toBe("rev 2: HTTP 500 Internal Server Error");
    expect(within(row()).getByTestId("error").title).toBe("HTTP 500 Internal Server Error from GET https://api.example.test/items");
    expect(row().dataset.resultRev).toBe("1");

    fireEvent.click(screen.getByRole("tab", { name: /^Timeline/ }));
    const types = screen.getAllByTestId("timeline-entry").map((e) => e.dataset.type);
    expect(types).toEqual(["error", "claimed", "result", "claimed"]);
    fireEvent.click(screen.getByRole("tab", { name: /^Events/ }));
    expect(screen.getAllByTestId("event-row").map((r) => r.dataset.type)).toEqual(["settled", "dispatched", "claimed"]);
    // Issue "time to data": the panel says how long a claim waited before its request left, and why.
    expect(screen.getAllByTestId("event-row")[2]!.textContent).toContain("rev 2 · no window: the settleMs option");
    fireEvent.click(screen.getByRole("tab", { name: /^Replicas/ }));
    const settle = screen.getByTestId("settle-window");
    expect([settle.dataset.why, settle.dataset.ms]).toEqual(["settle-ms", "0"]);
    // Its time is the last inspection's, not the current one: the text says so.
    expect(settle.textContent).toMatch(
      /^A claim made now, as of the last inspection \(\d\d:\d\d:\d\d\.\d{3}\): no window: the settleMs option$/,
    );
  });

  it("issue 10: a key asked for before the store is in sync says so in its holder cell", async () => {
    const doc = new Y.Doc();
    // A sync server that never answers: the first claim waits for the sync (the cap, 2 s).
    registerConnector(doc, { whenSynced: new Promise<void>(() => {}), crossDevice: true });
    const store = createSharedFetchStore({ doc, locks: null, fetch: () => new Promise<never>(() => {}) });
    render(<SharedFetchDevtools store={store} initialIsOpen />);
    background(store.ensure(req));
    await eventually(() => expect(keyRows()).toHaveLength(1));
    const cell = within(keyRows()[0]!).getByTestId("holder");
    expect([cell.textContent, cell.dataset.phase]).toEqual(["me (this tab) · waiting for the sync", "sync"]);
    cleanup();
    store.destroy();
  });

  it("a key asked for while the store waits for a reconnect's sync is not said to wait for the initial one", async () => {
    const doc = new Y.Doc();
    // In sync once; now its connection is being made again and its sync has not come yet.
    registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: true, resync: () => new Promise<void>(() => {}) });
    const store = createSharedFetchStore({ doc, locks: null, fetch: () => new Promise<never>(() => {}) });
    render(<SharedFetchDevtools store={store} initialIsOpen />);
    background(store.ensure(req));
    await eventually(() => expect(keyRows()).toHaveLength(1));
    const cell = within(keyRows()[0]!).getByTestId("holder");
    expect(store.inspect().lifecycle).toBe("starting");
    expect([cell.textContent, cell.dataset.phase]).toEqual(["me (this tab) · waiting for the sync", "sync"]);
    cleanup();
    store.destroy();
  });

  it("details: a bounded JSON preview, evict the record, and refetch only where this replica asked", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { hello: "world" } });
    await act(() => b!.ensure(req));
    render(<SharedFetchDevtools store={a!} initialIsOpen />);
    await eventually(() => expect(keyRows()).toHaveLength(1));
    fireEvent.click(screen.getByRole("button", { name: /^Details of GET/ }));
    const details = screen.getByTestId("key-details");
    expect((within(details).getByRole("button", { name: "refetch" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(details).getByRole("button", { name: /^show JSON/ }));
    expect(JSON.parse(screen.getByTestId("json-preview").textContent!)).toEqual({ hello: "world" });
    fireEvent.click(within(details).getByRole("button", { name: "evict record" }));
    // Nothing is left of the key in the doc (b fetched it, so its result was its only ask): the
    // row goes, as TanStack's devtools drop a removed query.
    await eventually(() => expect(keyRows()).toHaveLength(0));
    expect(b!.snapshot(req).status).toBe("idle");
  }, 30_000);

  it("the Replicas tab lists the inspected replica and the holders it sees; Malformed lists bad records", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    render(<SharedFetchDevtools store={a!} initialIsOpen initialTab="replicas" />);
    background(b!.ensure(req));
    await eventually(() => expect(screen.getAllByTestId("replica-row")).toHaveLength(2));
    const rows = screen.getAllByTestId("replica-row");
    expect(rows.map((r) => [r.dataset.replicaId, r.dataset.present])).toEqual([
      [a!.replicaId, "unknown"],
      [b!.replicaId, "unknown"],
    ]);
    expect(within(rows[0]!).getByRole("rowheader").textContent).toMatch(/\(me\)$/);
    expect(rows[0]!.textContent).toMatch(/this tab/);
    expect(rows[0]!.textContent).toMatch(/[0-9a-f]{12}$/);
    expect(screen.getByText(/No awareness given/)).toBeTruthy();

    fireEvent.click(screen.getByRole("tab", { name: /^Malformed/ }));
    const peer = new Y.Doc();
    c.net.add(peer);
    await act(async () => {
      const lane = new Y.Array<unknown>();
      lane.push([{ t: "claims", k: "k", v: { replicaId: 5 }, s: 1 }]);
      peer.getArray<unknown>(ROOT).push([lane]);
    });
    await eventually(() => expect(screen.getAllByTestId("malformed-row")).toHaveLength(1));
    expect(screen.getAllByTestId("malformed-row")[0]!.textContent).toMatch(
      /^claims k: claim\.replicaId is not a non-empty string\{"replicaId":5\}$/,
    );
    expect(screen.getByRole("tab", { name: /^Malformed/ }).textContent).toBe("Malformed (1)");
  });

  it("1 000 keys, virtualised: counts by status, filter and search; a bounded window of rows is in the DOM and scrolling reveals later keys", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    seedKeys(c.docOf(a!), 1000, { errorEvery: 10 });
    render(<SharedFetchDevtools store={a!} initialIsOpen />);
    await flush();
    expect(screen.getByTestId("count-error").textContent).toBe("error 100");
    expect(screen.getByTestId("count-success").textContent).toBe("success 900");
    const labels = () => keyRows().map((r) => within(r).getByRole("rowheader").textContent);
    const indexes = () => keyRows().map((r) => Number(r.getAttribute("aria-rowindex")));
    // jsdom lays nothing out: a 480 px viewport of 40 px rows, plus overscan.
    expect(keyRows().length).toBeGreaterThan(5);
    expect(keyRows().length).toBeLessThanOrEqual(30);
    expect(indexes()[0]).toBe(2);
    expect(labels()).not.toContain("GET https://api.example.test/items/999");
    const table = screen.getByRole("table", { name: "Keys" });
    expect(table.getAttribute("aria-rowcount")).toBe("1001");

    // The list scrolls on its own (a focusable region: the keyboard scrolls it too).
    const scroller = screen.getByRole("region", { name: "Keys list" });
    expect(scroller.tabIndex).toBe(0);
    const scrollTo = (px: number) => {
      Object.defineProperty(scroller, "scrollTop", { value: px, configurable: true });
      fireEvent.scroll(scroller);
    };
    scrollTo(500 * 40);
    expect(keyRows().length).toBeLessThanOrEqual(30);
    expect(Math.min(...indexes())).toBeGreaterThan(490);
    expect(Math.max(...indexes())).toBeLessThan(530);
    scrollTo(1000 * 40);
    // Sorted by request, numbers as numbers: items/999 is the last label.
    expect(labels()).toContain("GET https://api.example.test/items/999");
    expect(Math.max(...indexes())).toBe(1001);
    expect(keyRows().length).toBeLessThanOrEqual(30);

    fireEvent.click(screen.getByTestId("count-error"));
    expect(keyRows().every((r) => r.dataset.status === "error")).toBe(true);
    expect(screen.getByTestId("shown").textContent).toMatch(/^100 keys/);
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "items/999" } });
    expect(labels()).toEqual(["GET https://api.example.test/items/999"]);
    // jsdom on a loaded 2-core machine: seconds, not a performance claim (bench/devtools.ts measures).
  }, 30_000);

  it("outside development the default entry renders nothing (NODE_ENV is not 'development' under vitest)", () => {
    const c = cluster(1);
    const { container } = render(
      <>
        <gated.SharedFetchDevtools store={c.stores[0]!} initialIsOpen />
        <gated.SharedFetchDevtoolsPanel store={c.stores[0]!} />
      </>,
    );
    expect(process.env.NODE_ENV).not.toBe("development");
    expect(container.innerHTML).toBe("");
    cleanup();
    const { container: shell } = render(gated.sharedFetchDevtoolsPlugin({ store: c.stores[0]! }).render);
    expect(shell.innerHTML).toBe("");
  });
});
