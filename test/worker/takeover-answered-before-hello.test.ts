/**
 * A takeover that ends before the tab's hello reaches the promoted standby (the tab's main thread
 * was busy as the worker died): the standby took the dead worker's claim over with the tab's ask
 * it held in advance, and its answer went to no tab (the standby speaks to none before the
 * hello). The tab then re-sent its ask behind the hello: a refetch, the user's "refresh", sent a
 * second request and waited for it. Now the hello's kept asks get the answers given meanwhile,
 * and their re-sent twins are dropped. Real ports, docs and stores; FakeLocks.
 */
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { browser, tabBusyAtTakeover } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/takeover-answered-before-hello";

it("one request per key across a takeover: a refetch the standby answered before the tab's hello is not sent again", async () => {
  const host = new Host();
  const b = browser(host);
  let answered!: () => void;
  const done = new Promise<void>((resolve) => (answered = resolve));
  // This tab starts the standby (the first tab's page hosts the live worker); its hello to it waits for the answer.
  const { tab, whenHeld } = tabBusyAtTakeover(b, done);
  host.auto = (call) => ({ status: 200, body: { n: call.n } });
  await tab.ensure({ url: API });
  host.auto = undefined;
  const refreshed = tab.refetch({ url: API });
  await host.whenCalls(2);
  await whenHeld(tab.keyOf({ url: API }));

  host.auto = (call) => {
    setTimeout(answered, 50);
    return { status: 200, body: { n: call.n } };
  };
  b.kill(0);
  await expect(refreshed).resolves.toMatchObject({ status: "success", data: { n: 3 } });
  // Whatever else the next worker was asked (the re-sent refetch) is no new request.
  await new Promise((r) => setTimeout(r, 100));
  expect(host.calls).toHaveLength(3);
});
