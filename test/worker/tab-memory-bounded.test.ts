/**
 * A long-lived SharedWorker tab's memory is bounded by what it shows: the views it keeps of keys
 * nothing in the tab subscribes to, looks at or waits on are the last KEPT_UNHELD let go, not
 * every key it ever showed (a dashboard that visits thousands of routes, filters and pages). A key
 * forgotten and shown again reads pending until the worker answers (invariant 8), never idle; a
 * read right after the last unsubscribe still finds the view, its record's data object included.
 * Real ports, stores and Yjs docs; the simulated host; FakeLocks.
 */
import { describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import type { Snapshot } from "../../src/core/types.ts";
import { KEPT_UNHELD, RemoteViews } from "../../src/worker/remote-views.ts";
import type { BrowserStore } from "../../src/worker/connect-browser.ts";
import { browser, until } from "./browser-sim.ts";
import { tabViews } from "./tab-views.ts";

type Kept = { snaps: Map<string, unknown>; infos: Map<string, unknown>; unheld: Set<string> };
const kept = (views: RemoteViews): Kept => views as unknown as Kept;
const keptIn = (t: BrowserStore): Kept => (t as unknown as { views: Kept }).views;

const result = (v: number): Snapshot => ({ status: "success", data: { v } });

describe("a SharedWorker tab keeps views of what it shows, and of a bounded number of keys let go", () => {
  it("1 000 keys subscribed, answered and unsubscribed in turn leave KEPT_UNHELD views, not 1 000", () => {
    const { views } = tabViews();
    for (let i = 0; i < 1000; i++) {
      const off = views.watch("fetch", `k${i}`, {}, () => {});
      views.set(`k${i}`, result(i), { rev: 1, at: i });
      off();
    }
    const { snaps, infos, unheld } = kept(views);
    expect(snaps.size).toBe(KEPT_UNHELD);
    expect(infos.size).toBe(KEPT_UNHELD);
    expect(unheld.size).toBe(KEPT_UNHELD);
    // The most recently let go are the ones kept.
    expect(views.read("k999")).toMatchObject({ status: "success", data: { v: 999 } });
    expect(views.read("k0").status).toBe("idle");
  });

  it("a key still shown, looked at or asked for is never forgotten, however many keys are let go", () => {
    let asked = "";
    const views = new RemoteViews(
      () => {},
      (key) => (key === asked ? "any" : undefined),
    );
    const offShown = views.watch("fetch", "shown", {}, () => {});
    views.set("shown", result(1), { rev: 1, at: 1 });
    views.look("fetch", "looked", {}, () => {});
    views.set("looked", result(2), { rev: 1, at: 2 });
    asked = "asked";
    views.changed("asked");
    views.put("asked", { status: "pending" }, undefined);
    for (let i = 0; i < 1000; i++) {
      const off = views.watch("fetch", `k${i}`, {}, () => {});
      views.set(`k${i}`, result(i), { rev: 1, at: i });
      off();
    }
    expect(views.read("shown")).toMatchObject({ data: { v: 1 } });
    expect(views.read("looked")).toMatchObject({ data: { v: 2 } });
    expect(views.read("asked").status).toBe("pending");
    expect(kept(views).snaps.size).toBe(KEPT_UNHELD + 3);
    offShown();
  });

  it("a remount in the same tick reads the view it showed, the record's data object included", () => {
    const { views } = tabViews();
    const off = views.watch("fetch", "k", {}, () => {});
    views.set("k", result(1), { rev: 1, at: 1 });
    const shown = views.read("k");
    off();
    const again = views.watch("fetch", "k", {}, () => {});
    expect(views.read("k")).toBe(shown);
    // The worker's answer to the new subscription, a fresh clone of the same record: same object.
    views.set("k", result(1), { rev: 1, at: 1 });
    expect(views.read("k")).toBe(shown);
    again();
  });

  it("a forgotten key shown again reads pending until the worker answers, then its snapshot", () => {
    const { views } = tabViews();
    const off = views.watch("fetch", "k", {}, () => {});
    views.set("k", result(1), { rev: 1, at: 1 });
    off();
    for (let i = 0; i <= KEPT_UNHELD; i++) views.set(`other${i}`, result(i), { rev: 1, at: i });
    expect(kept(views).snaps.has("k")).toBe(false);
    const heard: string[] = [];
    const again = views.watch("fetch", "k", {}, () => heard.push(views.read("k").status));
    expect(views.read("k").status).toBe("pending");
    views.set("k", result(2), { rev: 2, at: 2 });
    expect(views.read("k")).toMatchObject({ status: "success", data: { v: 2 } });
    expect(views.info("k")).toEqual({ rev: 2, at: 2 });
    expect(heard).toEqual(["success"]);
    again();
  });

  it("through real ports: a tab that showed 1 000 keys one after another keeps KEPT_UNHELD of them", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { ok: true } });
    const t = browser(host).tab();
    const req = (i: number) => ({ url: `http://127.0.0.1:9/api/page/${i}` });
    await t.ensure(req(0));
    for (let i = 0; i < 1000; i++) {
      const off = t.subscribe(req(i), () => {});
      await until(() => t.hears!(t.keyOf(req(i))) && t.snapshot(req(i)).status !== "pending");
      off();
    }
    const { snaps, infos } = keptIn(t);
    expect(snaps.size).toBeLessThanOrEqual(KEPT_UNHELD);
    expect(infos.size).toBeLessThanOrEqual(KEPT_UNHELD);
    // The last one shown is still read at once, as the worker last answered it.
    expect(t.snapshot(req(999)).status).toBe("idle");
    expect(t.snapshot(req(0)).status).toBe("idle");
  });
});
