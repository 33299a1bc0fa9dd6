import { callAll } from "../core/emitter.ts";
import type { StoreEventListener } from "../core/events.ts";
import type { DocRecords } from "../core/doc-records.ts";
import type { Inspection } from "../core/inspector.ts";
import type { MalformedRecord } from "../core/lanes.ts";
import type { ClaimRecord } from "../core/records.ts";
import { createDocMirror, type DocMirror } from "./doc-mirror.ts";
import type { DevState, TabMessage, WorkerMessage } from "./protocol.ts";

/** Frozen through, but for what a record carries (a result's data, a malformed value): not frozen in a replica of its own either. */
const frozen = <T>(value: T): T => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value))
    for (const [field, inner] of Object.entries(Object.freeze(value))) if (field !== "data" && field !== "value") frozen(inner);
  return value;
};

/**
 * What the devtools see of the worker's replica from a tab: its inspection and events while
 * someone listens (the worker sends them only then), and a mirror of its doc, made when first
 * asked for and kept in sync both ways (the devtools read the raw records, their actions write).
 */
export class RemoteInspector {
  private readonly eventListeners = new Set<StoreEventListener>();
  private readonly inspectListeners = new Set<() => void>();
  private inspection: Inspection;
  private claimList: [string, ClaimRecord][] = [];
  private malformedList: MalformedRecord[] = [];
  private mirror: DocMirror | undefined;
  /** The worker replica's simulation switches as last sent (set here at once when this tab flips one). */
  dev: DevState = { crashed: false, networkPaused: false, heartbeatsStopped: false };
  private readonly localOffs = new Map<unknown, () => void>();

  constructor(
    private readonly send: (message: TabMessage) => void,
    replicaId: string,
  ) {
    this.inspection = { replicaId, at: Date.now(), keys: [], replicas: [], malformed: [] };
  }

  /**
   * What this tab wants to be told, as a new worker needs it; `hello`: with the simulation switches
   * on and the mirror's state, since the devtools' edits made as the last worker died went nowhere
   * (and later ones build on them).
   */
  resend(hello?: boolean): void {
    // A panel's switches are the browser's replica's: the next worker runs them too (before the
    // watch, so its first inspection already says so). Only a watching tab's are current.
    if (hello && this.inspectListeners.size > 0)
      for (const action of ["pauseNetwork", "stopHeartbeats"] as const)
        if (this.dev[action === "pauseNetwork" ? "networkPaused" : "heartbeatsStopped"]) this.send({ t: "dev", action, on: true });
    this.send({
      t: "watch",
      inspect: this.inspectListeners.size > 0,
      events: this.eventListeners.size > 0,
      doc: this.mirror !== undefined,
    });
    if (hello && this.mirror) this.send({ t: "doc", update: this.mirror.state() });
  }

  receive(msg: Extract<WorkerMessage, { t: "inspect" | "event" | "doc" }>): void {
    switch (msg.t) {
      case "inspect":
        if (msg.dev) this.dev = msg.dev;
        // Kept for every reader of this tab (its panel too) and handed out as is: frozen, as a
        // replica's own claims are (a caller writing into one changed every later read).
        this.inspection = frozen(msg.inspection);
        this.claimList = frozen(msg.claims);
        this.malformedList = frozen(msg.malformed);
        callAll(this.inspectListeners, [], "inspect");
        return;
      case "event":
        callAll(this.eventListeners, [msg.event], "event");
        return;
      case "doc":
        if (!this.mirror) return;
        try {
          this.mirror.apply(msg.update);
        } catch (error) {
          console.warn("shared-fetch: ignored a doc update from the worker that failed to apply", error);
        }
    }
  }

  /** Something the devtools show changed here (a simulation switch flipped). */
  changed(): void {
    callAll(this.inspectListeners, [], "inspect");
  }

  onEvent(listener: StoreEventListener): () => void {
    this.eventListeners.add(listener);
    if (this.eventListeners.size === 1) this.resend();
    return () => {
      this.localOffs.get(listener)?.();
      if (this.eventListeners.delete(listener) && this.eventListeners.size === 0) this.resend();
    };
  }

  onInspect(listener: () => void): () => void {
    this.inspectListeners.add(listener);
    if (this.inspectListeners.size === 1) this.resend();
    return () => {
      this.localOffs.get(listener)?.();
      if (this.inspectListeners.delete(listener) && this.inspectListeners.size === 0) this.resend();
    };
  }

  /** The tab became a replica of its own (the worker failed): the listeners follow that replica. */
  moveTo(local: { onEvent(l: StoreEventListener): () => void; onInspect(l: () => void): () => void }): void {
    for (const l of this.eventListeners) this.localOffs.set(l, local.onEvent(l));
    for (const l of this.inspectListeners) {
      this.localOffs.set(l, local.onInspect(l));
      l();
    }
  }

  mirrorRecords(): DocRecords {
    if (this.mirror) return this.mirror.records;
    this.mirror = createDocMirror((update) => this.send({ t: "doc", update }));
    this.resend();
    return this.mirror.records;
  }

  // The lists kept are frozen; each read gets its own, as a replica of its own hands out: a caller
  // that sorts one in place (its records stay frozen) was thrown at in this tab alone.
  inspect(): Inspection {
    const i = this.inspection;
    return { ...i, keys: [...i.keys], replicas: [...i.replicas], malformed: [...i.malformed] };
  }

  claims(): [string, ClaimRecord][] {
    return [...this.claimList];
  }

  malformed(): MalformedRecord[] {
    return [...this.malformedList];
  }

  destroy(): void {
    for (const off of this.localOffs.values()) off();
    this.eventListeners.clear();
    this.inspectListeners.clear();
    this.mirror?.destroy();
  }
}
