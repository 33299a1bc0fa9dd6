/**
 * RemoteViews.heard, the look a SharedWorker tab takes at what the worker holds for a key it does
 * not hear of: it subscribes (never asks, so nothing is fetched), resolves with the worker's answer
 * to that subscription, and ends the subscription then, or when its signal aborts.
 */
import { describe, expect, it } from "vitest";
import { tabViews } from "./tab-views.ts";

describe("a shown error's look at the worker subscribes, sends no ask, and ends its subscription", () => {
  it("resolves with the worker's answer to the subscription, which then ends", async () => {
    const { sent, views } = tabViews();
    views.set("k", { status: "error", error: { message: "500" } }, undefined);
    const heard = views.heard("fetch", "k", { url: "http://127.0.0.1:9/a" });
    expect(sent.map((m) => m.t)).toEqual(["sub"]);
    views.set("k", { status: "idle" }, undefined);
    await heard;
    expect(views.read("k").status).toBe("idle");
    expect(sent.map((m) => m.t)).toEqual(["sub", "unsub"]);
    expect(views.hears("k")).toBe(false);
  });

  it("an answer that changes nothing is an answer too", async () => {
    const { sent, views } = tabViews();
    views.set("k", { status: "error", error: { message: "500" } }, undefined);
    const heard = views.heard("fetch", "k", {});
    views.set("k", { status: "error", error: { message: "500" } }, undefined);
    await heard;
    expect(sent.map((m) => m.t)).toEqual(["sub", "unsub"]);
  });

  it("its signal aborting rejects it and ends the subscription; a shown key stays subscribed", async () => {
    const { sent, views } = tabViews();
    const off = views.watch("fetch", "shown", {}, () => {});
    const controller = new AbortController();
    const heard = views.heard("fetch", "shown", {}, controller.signal);
    const alone = views.heard("fetch", "k", {}, controller.signal);
    controller.abort();
    await expect(heard).rejects.toMatchObject({ name: "AbortError" });
    await expect(alone).rejects.toMatchObject({ name: "AbortError" });
    expect(sent).toEqual([
      { t: "sub", kind: "fetch", key: "shown", req: {} },
      { t: "sub", kind: "fetch", key: "k", req: {} },
      { t: "unsub", key: "k" },
    ]);
    off();
  });

  it("resolves when no worker will answer (the tab's store destroyed)", async () => {
    const { views } = tabViews();
    const heard = views.heard("fetch", "k", {});
    views.clear();
    await heard;
  });
});
