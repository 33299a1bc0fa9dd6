/**
 * SharedWorker mode: the panel's actions on a tab whose store was destroyed say they write nothing
 * more, as they do on a destroyed store of its own (test/devtools/actions-refused.test.ts). The
 * tab's mirror of the worker's doc went with the store: an "ok" there would report a change the
 * worker's doc never saw.
 */
import { expect, it } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { evictRecord, refetchKey, releaseClaim } from "../../devtools/actions.ts";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { Host } from "../../sim/host.ts";
import { browser, until } from "./browser-sim.ts";

const req = { url: "http://127.0.0.1:9/api/destroyed-tab" };

it("a destroyed tab store's evict, invalidate, refetch and release are refused; the worker's record stays as it was", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { n: 1 } });
  const b = browser(host);
  const tab = b.tab();
  await tab.ensure(req);
  const key = tab.keyOf(req);
  // The panel was open: the tab's mirror of the worker's doc holds the record.
  const model = createDevtoolsModel(tab, { minNotifyIntervalMs: 0 });
  await until(() => model.getSnapshot().keys.some((k) => k.key === key && k.status === "success"));
  model.destroy();
  tab.destroy();

  const refused = { ok: false, message: "This store was destroyed: it writes nothing more." };
  expect([evictRecord(tab, key), invalidateKey(tab, key), refetchKey(tab, key), releaseClaim(tab, key)]).toEqual([
    refused,
    refused,
    refused,
    refused,
  ]);
  // Another tab's ask round-trips through the worker: anything sent before it would have landed.
  await b.tab().ensure(req);
  const info = b.workerStore(0).resultInfo(req);
  expect(info?.rev).toBe(1);
  expect(info?.at).not.toBe(0);
  expect(host.calls).toHaveLength(1);
});
