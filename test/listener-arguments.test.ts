/**
 * Bad input gets a clear error (DESIGN.md): `store.onEvent` and `store.onInspect` given something
 * that is no function refuse it at the call, naming the value, in a tab's own replica and a
 * SharedWorker tab alike. Before, they took it, and every later event logged "listener is not a
 * function" far from the call that gave it. A refused call loses nothing: the listeners already
 * there still hear the store.
 */
import { describe, expect, it } from "vitest";
import { Host } from "../sim/host.ts";
import { SharedFetchInputError, type SharedFetchStoreWithExtras, type StoreEvent } from "../src/index.ts";
import { cluster } from "./harness/replicas.ts";
import { browser } from "./worker/browser-sim.ts";

const API = "http://127.0.0.1:9/api/listeners";

const kinds: [string, (host: Host) => SharedFetchStoreWithExtras][] = [
  ["own replica", (host) => cluster(0).join({ fetch: host.fetch, settleMs: 0 })],
  ["SharedWorker tab", (host) => browser(host).tab() as SharedFetchStoreWithExtras],
];

for (const [kind, make] of kinds) {
  describe(`store.onEvent / store.onInspect refuse what is no function (${kind})`, () => {
    it("names the method and the value; the listeners given before still hear the store", async () => {
      const host = new Host();
      host.auto = () => ({ status: 200, body: { ok: true } });
      const store = make(host);
      const heard: StoreEvent["type"][] = [];
      store.onEvent((event) => heard.push(event.type));
      let inspected = 0;
      store.onInspect(() => inspected++);
      const refused = (call: () => unknown, message: RegExp) =>
        expect(call).toThrow(expect.objectContaining({ name: SharedFetchInputError.name, message: expect.stringMatching(message) }));
      refused(() => store.onEvent("listener" as never), /onEvent needs a listener function, got "listener"/);
      refused(() => store.onEvent(undefined as never), /onEvent needs a listener function, got undefined/);
      refused(() => store.onInspect({} as never), /onInspect needs a listener function, got \{\}/);
      await expect(store.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { ok: true } });
      await expect.poll(() => inspected).toBeGreaterThan(0);
      if (kind === "own replica") expect(heard).toContain("claimed");
    });
  });
}
