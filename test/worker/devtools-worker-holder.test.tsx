// @vitest-environment jsdom
/**
 * The devtools panel of a SharedWorker tab (connectBrowser) says truthfully whose claim is whose.
 * The inspected replica there is the browser's SharedWorker, every tab's: its claim read
 * "me (this tab)" in every tab of the browser, the one that asked and the one that did not, its
 * Replicas row "this tab (me)", the Timeline "this tab claimed …", and the actions "release my
 * claim" and "crash this replica … Reload to recover". Now the holder is "this browser's
 * SharedWorker", with "this tab waits on it" only in the tab whose query shows the key; a claim of
 * a tab replica of the same browser (a fallback tab) reads "same browser"; the tab's own panel of
 * that fallback tab keeps per-tab mode's "me (this tab)". Real ports, docs and stores; FakeLocks;
 * fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { act, cleanup as unmount, render, within } from "@testing-library/react";
import { createElement } from "react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { Host } from "../../sim/host.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/holder";
const OWN = "http://127.0.0.1:9/api/fallback-tab";
afterEach(unmount);

function panel(store: Parameters<typeof SharedFetchDevtoolsPanel>[0]["store"], initialTab?: "replicas" | "timeline") {
  const { container } = render(
    createElement(SharedFetchDevtoolsPanel, { store, simulations: true, ...(initialTab ? { initialTab } : {}) }),
  );
  return within(container);
}

/** The holder cell of `url`'s row, once its text satisfies `check`. */
async function holderOf(view: ReturnType<typeof panel>, url: string, check: (text: string) => boolean): Promise<string> {
  let text = "";
  const deadline = Date.now() + 2000;
  await until(() => {
    if (Date.now() > deadline) throw new Error(`the holder of ${url} read "${text}"`);
    const row = view.queryAllByTestId("key-row").find((r) => r.textContent?.includes(url.slice(url.indexOf("/api"))));
    text = row ? (within(row).getByTestId("holder").textContent ?? "") : "";
    return check(text);
  });
  return text;
}

it("a worker tab's panel names the SharedWorker as the holder, says which tab waits on it, and keeps per-tab labels in a fallback tab", async () => {
  const host = new Host();
  const b = browser(host);
  const asker = b.tab();
  const other = b.tab();
  const fallback = b.tab({ worker: false, fetch: host.fetch });
  expect(fallback.mode).toBe("tab");
  cleanupLater(asker.subscribe({ url: API }, () => {}));
  const asked = asker.ensure({ url: API });
  asked.catch(() => {});
  const [call] = await host.whenCalls(1);
  const own = fallback.ensure({ url: OWN });
  own.catch(() => {});
  const [, ownCall] = await host.whenCalls(2);

  const askerView = panel(asker);
  const otherView = panel(other);
  const worker = "this browser's SharedWorker";
  expect(await holderOf(askerView, API, (t) => t.includes("request in flight"))).toBe(
    `${worker} · this tab waits on it · request in flight`,
  );
  expect(await holderOf(otherView, API, (t) => t.includes("request in flight"))).toBe(`${worker} · request in flight`);
  // A tab replica of this browser is named as one, in a worker tab's panel too.
  const fallbackId = fallback.replicaId.slice(0, 11);
  expect(await holderOf(otherView, OWN, (t) => t !== "" && t !== "none")).toMatch(new RegExp(`^${fallbackId}.* · same browser$`));

  // The actions act on the worker and say so; only a tab that shows the key knows its request.
  await act(async () => otherView.getAllByRole("button", { name: /^Details of GET .*\/api\/holder/ })[0]!.click());
  const details = within(otherView.getByTestId("key-details"));
  expect(details.getByRole("button", { name: "release the SharedWorker's claim" })).toBeTruthy();
  expect(details.getByRole("button", { name: "refetch" }).getAttribute("title")).toBe("Only a tab that shows the key knows its request");
  expect(otherView.getByRole("button", { name: "crash the SharedWorker" }).getAttribute("title")).toMatch(/next worker/);
  expect(otherView.queryByText(/me \(this tab\)|release my claim|crash this replica/)).toBeNull();

  // The fallback tab's own panel is per-tab mode's, unchanged.
  const fallbackView = panel(fallback);
  expect(await holderOf(fallbackView, OWN, (t) => t.includes("request in flight"))).toBe("me (this tab) · request in flight");
  expect(fallbackView.getByRole("button", { name: "crash this replica" })).toBeTruthy();
  unmount();

  // Replicas: the worker's row says where it runs; the tab is no replica of its own, it views the worker's.
  const replicas = panel(other, "replicas");
  const workerId = other.replicaId;
  await until(() => replicas.queryAllByTestId("replica-row").some((r) => r.dataset.replicaId === workerId));
  const workerRow = replicas.getAllByTestId("replica-row").find((r) => r.dataset.replicaId === workerId)!;
  expect(workerRow.textContent).toContain(`(viewed by this tab)${worker}`);
  expect(replicas.queryByText(/\(me\)|^this tab$/)).toBeNull();
  unmount();

  // Timeline: the claim is the worker's, not "this tab"'s.
  const timeline = panel(other, "timeline");
  await until(() => timeline.queryAllByTestId("timeline-entry").some((e) => e.textContent?.includes("claimed GET")));
  const claimed = timeline.getAllByTestId("timeline-entry").map((e) => e.textContent ?? "");
  expect(claimed.some((t) => t.includes(`${worker} claimed GET`) || t.includes(`${worker} held GET`))).toBe(true);
  expect(claimed.join("\n")).not.toContain("this tab claimed");

  call!.respond(200, { ok: 1 });
  ownCall!.respond(200, { ok: 2 });
  await expect(asked).resolves.toMatchObject({ status: "success" });
  await expect(own).resolves.toMatchObject({ status: "success" });
});

const offs: (() => void)[] = [];
afterEach(() => offs.splice(0).forEach((off) => off()));
function cleanupLater(off: () => void): void {
  offs.push(off);
}
