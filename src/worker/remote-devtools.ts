import type { DocRecords } from "../core/doc-records.ts";
import type { StoreEventListener } from "../core/events.ts";
import type { Inspection } from "../core/inspector.ts";
import type { MalformedRecord } from "../core/lanes.ts";
import type { ClaimRecord } from "../core/records.ts";
import { checkedListener } from "../core/store-options.ts";
import type { LocalReplica } from "./hand-over.ts";
import type { DevState, TabMessage } from "./protocol.ts";
import type { RemoteInspector } from "./remote-inspector.ts";

/**
 * What the devtools read and act on through a tab's store when the browser's replica lives in a
 * SharedWorker (see RemoteStore): the worker replica's inspection, events, doc and simulations, or
 * the tab's own replica's once the worker failed.
 */
export abstract class RemoteDevtools {
  protected abstract readonly send: (message: TabMessage) => void;
  protected abstract readonly inspector: RemoteInspector;
  protected destroyed = false;
  /** The tab's own replica, once the worker failed (see fallBack): every call goes there. */
  protected local: LocalReplica | undefined;

  /**
   * "destroyed" once this tab's store is: the panel's actions then refuse (devtools/actions.ts), as
   * its mirror of the doc went with it. Otherwise the worker's replica's stage is in `inspect()`.
   */
  get stage(): "destroyed" | undefined {
    return this.destroyed ? "destroyed" : undefined;
  }

  onEvent(listener: StoreEventListener): () => void {
    checkedListener(listener, "onEvent");
    if (this.local) return this.local.onEvent(listener);
    return this.inspector.onEvent(listener);
  }

  onInspect(listener: () => void): () => void {
    checkedListener(listener, "onInspect");
    if (this.local) return this.local.onInspect(listener);
    return this.inspector.onInspect(listener);
  }

  /**
   * The raw records of a copy of the worker's doc, kept in sync both ways from the first call on
   * (the devtools read them and their actions write them). Made only when asked: a tab otherwise
   * holds no doc.
   */
  mirrorRecords(): DocRecords {
    return this.inspector.mirrorRecords();
  }

  /** The worker's inspection as last sent (fresh while someone listens to onInspect). */
  inspect(): Inspection {
    if (this.local) return this.local.inspect();
    const i = this.inspector.inspect();
    // The worker's last word on its replica, not on this tab's store: that one ended here.
    return this.destroyed ? { ...i, lifecycle: "destroyed" } : i;
  }

  claims(): [string, ClaimRecord][] {
    if (this.local) return this.local.claims();
    return this.inspector.claims();
  }

  malformed(): MalformedRecord[] {
    if (this.local) return this.local.malformed();
    return this.inspector.malformed();
  }

  /** The worker replica's simulation switches (the devtools' Simulations). */
  devState(): DevState {
    return this.inspector.dev;
  }

  /**
   * A devtools simulation, acted out by the worker: its replica is every tab's, so pausing its
   * network pauses every tab's requests, and crashing it costs a takeover by the next worker.
   */
  simulate(sim: { action: "crash" } | { action: "pauseNetwork" | "stopHeartbeats"; on: boolean }): void {
    const dev = this.inspector.dev;
    this.inspector.dev =
      sim.action === "crash"
        ? { ...dev, crashed: true }
        : sim.action === "pauseNetwork"
          ? { ...dev, networkPaused: sim.on }
          : { ...dev, heartbeatsStopped: sim.on };
    this.send({ t: "dev", ...sim } as TabMessage);
    this.inspector.changed();
  }
}
