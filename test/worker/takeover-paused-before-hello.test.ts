/**
 * A takeover while the browser is offline, its first attempt failing before a busy tab's hello
 * reaches the promoted standby: the retry waits for the connection, and the tab is told so (TanStack
 * shows fetchStatus "paused", as its own retryer does). The standby's word of the wait went to no
 * tab (it speaks to none before the hello), so the tab showed "fetching" throughout the wait.
 * Real ports, docs and stores; FakeLocks; the worker's navigator and online events stood in for.
 */
import { afterAll, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { pausingWhileOffline, tanstackRetry } from "../../src/core/retry.ts";
import { browser, pageEvents, tabBusyAtTakeover, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/takeover-paused-before-hello";

let online = true;
// The worker's own view of the network (retry-wire.ts reads navigator.onLine).
const scope = globalThis as { navigator?: unknown };
const had = Object.getOwnPropertyDescriptor(scope, "navigator");
Object.defineProperty(scope, "navigator", {
  configurable: true,
  value: {
    get onLine() {
      return online;
    },
  },
});
afterAll(() => {
  if (had) Object.defineProperty(scope, "navigator", had);
  else delete scope.navigator;
});

it("the tab hears that the takeover's retry waits for the connection, then that it goes on", async () => {
  const page = pageEvents();
  const host = new Host();
  const b = browser(host);
  let failed!: () => void;
  const blip = new Promise<void>((resolve) => (failed = resolve));
  const { tab, whenHeld } = tabBusyAtTakeover(b, blip);
  const heard: boolean[] = [];
  const policy = pausingWhileOffline(
    tanstackRetry(3, 0, (e) => e),
    { isOnline: () => online, subscribe: () => () => {} },
    (on) => heard.push(on),
  );
  const asked = tab.ensure({ url: API }, { retry: policy });
  await host.whenCalls(1);
  await whenHeld(tab.keyOf({ url: API }));

  online = false;
  host.auto = () => {
    setTimeout(failed, 50);
    return { status: 503, body: {} };
  };
  b.kill(0);
  await blip;
  // The next worker's ready comes behind whatever it told the tab at its hello.
  await until(() => tab.replicaId === b.workerStore(1).replicaId);
  expect(heard).toEqual([true]);
  host.auto = () => ({ status: 200, body: { ok: true } });
  online = true;
  page.dispatchEvent(new Event("online"));
  await expect(asked).resolves.toMatchObject({ status: "success", data: { ok: true } });
  expect(heard).toEqual([true, false]);
});
