import type { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";
import { connectorsOf, onConnector, type ConnectorInfo } from "./connectors.ts";

/**
 * Binds to `initial` and, once it is destroyed with its connection (`connectPeers(doc).destroy()`
 * and a connect again: an effect's cleanup and re-run, an offline toggle), to the awareness of the
 * doc's next connector of the same kind: a store outlives its connections. Before, it kept the
 * destroyed one: the other devices never saw it again, and it saw nobody, so it claimed as if alone.
 * Given the tabs' awareness (Usage) on a doc that also reaches other devices (connectPeers beside
 * connectTabs, before or after the store), it follows the devices' connector's awareness while there
 * is one (the tabs' again once it is destroyed): the other devices' presence is only there. Before,
 * it counted no other device present, so every device claimed eagerly (each sent every request
 * asked at once) and none saw another leave.
 */
export function followAwareness(
  doc: Y.Doc,
  initial: Awareness,
  bind: (awareness: Awareness) => (keep?: boolean, crashed?: boolean) => () => void,
): () => void {
  const kind = connectorsOf(doc).find((c) => c.awareness === initial)?.crossDevice;
  const fits = (c: { awareness?: Awareness; crossDevice: boolean }, gone: Awareness) =>
    c.awareness !== undefined && c.awareness !== gone && (kind === undefined || c.crossDevice === kind);
  let stop = (_keep?: boolean, _crashed?: boolean): void => {};
  let left = () => {};
  const follow = (awareness: Awareness): void => {
    const unbind = bind(awareness);
    const onDestroy = () => {
      stop();
      // A successor made before this one was destroyed is there already.
      const next = connectorsOf(doc).find((c) => fits(c, awareness));
      if (next) return follow(next.awareness!);
      const unwatch = onConnector(doc, (c) => {
        if (!fits(c, awareness)) return;
        unwatch();
        follow(c.awareness!);
      });
      stop = unwatch;
    };
    awareness.on("destroy", onDestroy);
    stop = (keep, crashed) => {
      awareness.off("destroy", onDestroy);
      keep &&= crashed || awareness === initial;
      const leave = unbind(keep, crashed);
      if (keep) left = leave;
    };
  };
  // Given the tabs' awareness on a doc that also reaches other devices: theirs, while there is one.
  // Our entry stays in the tabs' (we have not left): a tab that watches only theirs would take its
  // removal for our death and send again what we have in flight, and would not hear our waits; it
  // goes at our stop. Devices connected first, it is written there all the same.
  const toDevices = (c: ConnectorInfo): boolean => kind === false && c.crossDevice && (stop(true), follow(c.awareness!), true);
  const unwatch = onConnector(doc, toDevices);
  follow(initial);
  connectorsOf(doc).some(toDevices);
  // `crashed` (dev.crash): it stops watching and leaves nowhere; a crashed page says nothing.
  return (crashed?: boolean) => (unwatch(), stop(crashed, crashed), crashed || left());
}
