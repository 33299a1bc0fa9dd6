import { Host } from "../../sim/host.ts";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { browser } from "./browser-sim.ts";

/**
 * Two tabs of one browser, made either way: per-tab replicas (connectTabs) or tabs of the
 * SharedWorker replica (connectBrowser); the second made when asked for. Keys name the cases of a
 * `describe.each`.
 */
export const tabsOfOneBrowser = {
  "per-tab replicas (connectTabs)": () => {
    const c = cluster(1, { settleMs: 0 });
    return { host: c.host, first: c.stores[0]!, second: () => c.join() };
  },
  "tabs of the SharedWorker replica (connectBrowser)": () => {
    const b = browser(new Host());
    return { host: b.host, first: b.tab() as SharedFetchStoreWithExtras, second: () => b.tab() as SharedFetchStoreWithExtras };
  },
};
