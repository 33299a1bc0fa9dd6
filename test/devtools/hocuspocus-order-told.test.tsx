// @vitest-environment jsdom
/**
 * connectHocuspocus({ oneInstance: true }) places each claim by its own echo from the instance (a
 * fence). The panel says so: the Replicas tab's settle line names the sync server's order, and the
 * Events tab tells where the order placed each claim — first, behind another replica's claim (the
 * yield that follows is that order's, not a timed window's), or unknown, when a read-only
 * connection's instance refused the claim and its fence gave up (the claim then waits its whole
 * window). A real Hocuspocus server and HTTP host on 127.0.0.1.
 */
import { cleanup, fireEvent, render, waitFor, within } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { CountingHost } from "../cluster/http-host.ts";
import { bothPresent, HeldListeners, startHocuspocus } from "../sync/ordered-devices.ts";

let server: Awaited<ReturnType<typeof startHocuspocus>>;
let host: CountingHost;
beforeAll(async () => {
  [host, server] = await Promise.all([CountingHost.start(), startHocuspocus()]);
});
afterAll(async () => {
  await Promise.all([server.close(), host.close()]);
});
afterEach(cleanup);

function device(room: string, clientID: number, token = "t") {
  const doc = new Y.Doc();
  doc.clientID = clientID;
  const inbound = new HeldListeners();
  const conn = connectHocuspocus(doc, { url: server.url, room, token, WebSocketPolyfill: inbound.socket(), oneInstance: true });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null });
  const view = render(<SharedFetchDevtoolsPanel store={store} awareness={conn.awareness} />);
  const close = () => (store.destroy(), conn.destroy(), doc.destroy());
  return { doc, conn, store, inbound, view, close };
}
type Device = ReturnType<typeof device>;

const tab = (d: Device, name: RegExp) => fireEvent.click(within(d.view.container).getByRole("tab", { name }));
const orderRows = (d: Device) =>
  within(d.view.container)
    .queryAllByTestId("event-row")
    .filter((r) => r.dataset.type === "ordered")
    .map((r) => r.textContent);

describe("devtools: a claim placed by the Hocuspocus instance's order (oneInstance) is told", () => {
  // Two devices on a Hocuspocus instance and a rendered panel: past the unit project's 5 s at load 20.
  it("the settle line names the sync server's order; Events: first for the claim that runs, behind for the one that yields", async () => {
    const room = `dt-order-${Math.random().toString(36).slice(2)}`;
    const path = `/dt-order/${room}`;
    const url = host.url(path);
    const a = device(room, 2);
    const b = device(room, 1);
    try {
      await bothPresent(a, b);
      tab(b, /^Replicas/);
      await waitFor(() => expect(within(b.view.container).getByTestId("settle-window").textContent).toMatch(/the sync server's order/));
      host.hold = true;
      b.inbound.held = true; // a's claim reaches the instance first; b hears of it when released
      const first = a.store.ensure({ url });
      first.catch(() => {});
      await host.whenCount(path, 1);
      const second = b.store.ensure({ url });
      second.catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 200));
      await b.inbound.release();
      host.release();
      await Promise.all([first, second]);
      expect(host.count(path)).toBe(1);
      tab(a, /^Events/);
      tab(b, /^Events/);
      await waitFor(() => expect(orderRows(a)).toEqual([expect.stringMatching(/rev 1: first in the sync server's order/)]));
      await waitFor(() => expect(orderRows(b)).toEqual([expect.stringMatching(/rev 1: behind another claim in the sync server's order/)]));
    } finally {
      host.release();
      a.close();
      b.close();
    }
  }, 20_000);

  it("a read-only connection: Events says the fence gave up (the instance refused the claim) and the claim waits its whole window", async () => {
    const room = `dt-viewer-${Math.random().toString(36).slice(2)}`;
    const path = `/dt-viewer/${room}`;
    const a = device(room, 3);
    const viewer = device(room, 4, "viewer");
    try {
      await bothPresent(a, viewer);
      await viewer.store.ensure({ url: host.url(path) });
      tab(viewer, /^Events/);
      await waitFor(() =>
        expect(orderRows(viewer)).toEqual([
          expect.stringMatching(/rev 1: the sync server's order unknown \(its fence gave up\): it waits its whole window/),
        ]),
      );
    } finally {
      a.close();
      viewer.close();
    }
  });
});
