/**
 * SharedWorker mode: a panel left open on a tab whose store was destroyed says so, as it does on a
 * store of its own (test/devtools/destroyed-store.test.ts). The tab's store answered with the
 * worker's last inspection, which named no end: the header said nothing, and the view looked live.
 */
import { expect, it } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { browser, until } from "./browser-sim.ts";

const req = { url: "http://127.0.0.1:9/api/destroyed-view" };

it("the panel of a destroyed tab store shows its last view, marked so, at once", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { n: 1 } });
  const b = browser(host);
  const tab = b.tab();
  await tab.ensure(req);
  const key = tab.keyOf(req);
  const model = createDevtoolsModel(tab, { minNotifyIntervalMs: 0 });
  let told = 0;
  model.subscribe(() => told++);
  await until(() => model.getSnapshot().keys.some((k) => k.key === key && k.status === "success"));
  const before = told;
  tab.destroy();
  await until(() => told > before);
  const last = model.getSnapshot();
  expect(last.storeDestroyed).toBe(true);
  expect(last.keys.map((k) => [k.key, k.status])).toEqual([[key, "success"]]);
  model.destroy();
});
