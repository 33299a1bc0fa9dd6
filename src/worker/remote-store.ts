import * as Y from "yjs";
import { abortError, SharedFetchInputError } from "../core/errors.ts";
import type { StoreEventListener } from "../core/events.ts";
import type { Inspection } from "../core/inspector.ts";
import { fetchKey, programKey } from "../core/key.ts";
import type { MalformedRecord } from "../core/lanes.ts";
import { normalizeProgramRequest } from "../core/program-work.ts";
import type { ClaimRecord } from "../core/records.ts";
import { normalizeRequest } from "../core/request.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { ensureOptions } from "../core/store-options.ts";
import { numberOption } from "../core/options.ts";
import type { EnsureOptions, Program, ProgramRequest, SharedRequest, Snapshot } from "../core/types.ts";
import { callAll } from "../core/emitter.ts";
import type { Mode, ResultInfo, TabMessage, WorkerMessage, WorkKind } from "./protocol.ts";

const IDLE: Snapshot = Object.freeze({ status: "idle" }) as Snapshot;
// Asked, not answered yet: pending is the truth (invariant 8), "idle" would say nobody works on it.
const ASKED: Snapshot = Object.freeze({ status: "pending" }) as Snapshot;

type Waiter = {
  kind: WorkKind;
  mode: Mode;
  key: string;
  req: unknown;
  leaseMs?: number;
  maxAgeMs?: number;
  resolve(snap: Snapshot): void;
  reject(error: unknown): void;
  cleanup(): void;
};

type Watched = { kind: WorkKind; req: unknown; listeners: Set<() => void> };

/** How a tab's store reaches the worker: set while a worker serves it, undefined between workers. */
export type Link = (message: TabMessage) => void;

/**
 * A tab's store when the browser's replica lives in a SharedWorker: the same surface as
 * createSharedFetchStore's, spoken over the port. Snapshots are kept here, so `snapshot()` is
 * synchronous (useSyncExternalStore); what the tab still wants (waiters, subscriptions, the
 * inspector) is re-sent to each new worker, so a worker's death costs a takeover, not the tab's work.
 */
export class RemoteStore implements SharedFetchStoreWithExtras {
  private link: Link | undefined;
  private workerReplicaId: string | undefined;
  private readonly snaps = new Map<string, Snapshot>();
  private readonly infos = new Map<string, ResultInfo>();
  private readonly watched = new Map<string, Watched>();
  private readonly waiters = new Map<number, Waiter>();
  private readonly eventListeners = new Set<StoreEventListener>();
  private readonly inspectListeners = new Set<() => void>();
  private inspection: Inspection;
  private claimList: [string, ClaimRecord][] = [];
  private malformedList: MalformedRecord[] = [];
  private mirror: Y.Doc | undefined;
  private nextId = 1;
  private destroyed = false;
  /** Worker messages that failed validation and were dropped. */
  malformedMessages = 0;

  constructor(
    readonly identity: string,
    private readonly leaseMs: number,
    private readonly programLeaseMs: number,
    private readonly fallbackId: string,
  ) {
    this.inspection = { replicaId: fallbackId, at: Date.now(), keys: [], replicas: [], malformed: [] };
  }

  /** The worker's replica (every tab of the browser shows the same one); the tab's own id until a worker answered. */
  get replicaId(): string {
    return this.workerReplicaId ?? this.fallbackId;
  }

  /** A worker is ready: send it everything this tab still wants. */
  attach(link: Link, workerReplicaId: string): void {
    if (this.destroyed) return;
    this.link = link;
    this.workerReplicaId = workerReplicaId;
    for (const [key, w] of this.watched) link({ t: "sub", kind: w.kind, key, req: w.req });
    for (const [id, w] of this.waiters) link(this.ensureMessage(id, w));
    this.sendWatch();
  }

  /** The worker died or the page was hidden: keep what is shown (still pending), send nothing until the next one. */
  detach(): void {
    this.link = undefined;
  }

  receive(data: unknown, parse: (d: unknown) => WorkerMessage | undefined): void {
    const msg = parse(data);
    if (!msg) {
      this.malformedMessages += 1;
      return;
    }
    switch (msg.t) {
      case "snap":
        return this.setSnap(msg.key, msg.snap, msg.info);
      case "settled": {
        this.setSnap(msg.key, msg.snap, msg.info);
        const w = this.waiters.get(msg.id);
        if (!w) return;
        this.waiters.delete(msg.id);
        w.cleanup();
        w.resolve(msg.snap);
        return;
      }
      case "rejected": {
        const w = this.waiters.get(msg.id);
        if (!w) return;
        this.waiters.delete(msg.id);
        w.cleanup();
        const error =
          msg.error.name === "AbortError"
            ? abortError(msg.error.message)
            : msg.error.name === "SharedFetchInputError"
              ? new SharedFetchInputError(msg.error.message)
              : Object.assign(new Error(msg.error.message), { name: msg.error.name });
        w.reject(error);
        return;
      }
      case "inspect":
        this.inspection = msg.inspection;
        this.claimList = msg.claims;
        this.malformedList = msg.malformed;
        callAll(this.inspectListeners, [], "inspect");
        return;
      case "event":
        callAll(this.eventListeners, [msg.event], "event");
        return;
      case "doc":
        if (this.mirror) {
          try {
            Y.applyUpdate(this.mirror, msg.update, this);
          } catch (error) {
            console.warn("shared-fetch: ignored a doc update from the worker that failed to apply", error);
          }
        }
        return;
      default:
        return;
    }
  }

  private setSnap(key: string, snap: Snapshot, info: ResultInfo | undefined): void {
    if (info) this.infos.set(key, info);
    else this.infos.delete(key);
    if (this.snaps.get(key) !== undefined && sameSnapshot(this.snaps.get(key)!, snap)) return;
    this.snaps.set(key, snap);
    const w = this.watched.get(key);
    if (w) callAll(w.listeners, [], "snapshot");
  }

  private ensureMessage(id: number, w: Waiter): TabMessage {
    return {
      t: "ensure",
      id,
      kind: w.kind,
      mode: w.mode,
      req: w.req,
      ...(w.leaseMs !== undefined ? { leaseMs: w.leaseMs } : {}),
      ...(w.maxAgeMs !== undefined ? { maxAgeMs: w.maxAgeMs } : {}),
    };
  }

  private run(
    kind: WorkKind,
    mode: Mode,
    key: string,
    req: unknown,
    signal: AbortSignal | undefined,
    extra: { leaseMs?: number; maxAgeMs?: number },
  ): Promise<Snapshot> {
    if (this.destroyed) return Promise.reject(abortError("shared-fetch: the store was destroyed"));
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const id = this.nextId++;
    return new Promise<Snapshot>((resolve, reject) => {
      const onAbort = () => {
        if (!this.waiters.delete(id)) return;
        this.link?.({ t: "abort", id });
        this.notify(key);
        reject(abortError(signal?.reason));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const w: Waiter = { kind, mode, key, req, ...extra, resolve, reject, cleanup: () => signal?.removeEventListener("abort", onAbort) };
      this.waiters.set(id, w);
      this.link?.(this.ensureMessage(id, w));
      this.notify(key);
    });
  }

  private notify(key: string): void {
    if (this.snaps.has(key)) return;
    const w = this.watched.get(key);
    if (w) callAll(w.listeners, [], "snapshot");
  }

  private read(key: string): Snapshot {
    const known = this.snaps.get(key);
    if (known) return known;
    for (const w of this.waiters.values()) if (w.key === key) return ASKED;
    return IDLE;
  }

  private watch(kind: WorkKind, key: string, req: unknown, listener: () => void): () => void {
    let w = this.watched.get(key);
    if (!w) {
      w = { kind, req, listeners: new Set() };
      this.watched.set(key, w);
      this.link?.({ t: "sub", kind, key, req });
    }
    const entry = w;
    const fn = () => listener();
    entry.listeners.add(fn);
    return () => {
      entry.listeners.delete(fn);
      if (entry.listeners.size > 0 || this.watched.get(key) !== entry) return;
      this.watched.delete(key);
      this.link?.({ t: "unsub", key });
    };
  }

  private guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return fn();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  keyOf(req: SharedRequest | string): string {
    return fetchKey(this.identity, normalizeRequest(req));
  }

  programKeyOf(req: ProgramRequest): string {
    const { url, compile } = normalizeProgramRequest(req);
    return programKey(this.identity, url, compile);
  }

  ensure(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
    return this.guard(() => {
      const { signal, leaseMs } = ensureOptions(opts, this.leaseMs);
      const maxAge = opts?.maxAgeMs === undefined ? undefined : numberOption("maxAgeMs", opts.maxAgeMs, 0, { min: "non-negative" });
      return this.run("fetch", "ensure", this.keyOf(req), req, signal, { leaseMs, ...(maxAge !== undefined ? { maxAgeMs: maxAge } : {}) });
    });
  }

  refetch(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
    return this.guard(() => {
      const { signal, leaseMs } = ensureOptions(opts, this.leaseMs);
      return this.run("fetch", "refetch", this.keyOf(req), req, signal, { leaseMs });
    });
  }

  snapshot(req: SharedRequest): Snapshot {
    return this.read(this.keyOf(req));
  }

  subscribe(req: SharedRequest, listener: () => void): () => void {
    return this.watch("fetch", this.keyOf(req), req, listener);
  }

  resultInfo(req: SharedRequest | string): { rev: number; at?: number } | undefined {
    return this.infos.get(this.keyOf(req));
  }

  ensureProgram(req: ProgramRequest, opts?: { signal?: AbortSignal }): Promise<Snapshot<Program>> {
    return this.guard(() => {
      const { signal } = ensureOptions(opts, this.programLeaseMs);
      return this.run("program", "ensure", this.programKeyOf(req), req, signal, {}) as Promise<Snapshot<Program>>;
    });
  }

  refetchProgram(req: ProgramRequest): Promise<Snapshot<Program>> {
    return this.guard(() => this.run("program", "refetch", this.programKeyOf(req), req, undefined, {}) as Promise<Snapshot<Program>>);
  }

  programSnapshot(req: ProgramRequest): Snapshot<Program> {
    return this.read(this.programKeyOf(req)) as Snapshot<Program>;
  }

  subscribeProgram(req: ProgramRequest, listener: () => void): () => void {
    return this.watch("program", this.programKeyOf(req), req, listener);
  }

  programResultInfo(req: ProgramRequest): { rev: number; at?: number } | undefined {
    return this.infos.get(this.programKeyOf(req));
  }

  onEvent(listener: StoreEventListener): () => void {
    this.eventListeners.add(listener);
    if (this.eventListeners.size === 1) this.sendWatch();
    return () => {
      if (this.eventListeners.delete(listener) && this.eventListeners.size === 0) this.sendWatch();
    };
  }

  onInspect(listener: () => void): () => void {
    this.inspectListeners.add(listener);
    if (this.inspectListeners.size === 1) this.sendWatch();
    return () => {
      if (this.inspectListeners.delete(listener) && this.inspectListeners.size === 0) this.sendWatch();
    };
  }

  private sendWatch(): void {
    this.link?.({
      t: "watch",
      inspect: this.inspectListeners.size > 0,
      events: this.eventListeners.size > 0,
      doc: this.mirror !== undefined,
    });
  }

  /**
   * A copy of the worker's doc, kept in sync both ways from the first call on (the devtools read
   * the raw records and their actions write them). Made only when asked: a tab otherwise holds no doc.
   */
  mirrorDoc(): Y.Doc {
    if (this.mirror) return this.mirror;
    const doc = new Y.Doc();
    this.mirror = doc;
    doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin !== this) this.link?.({ t: "doc", update });
    });
    this.sendWatch();
    return doc;
  }

  /** The requests this tab shows (by key): only a tab that asked knows the headers and body behind a key. */
  shownRequests(): { key: string; kind: WorkKind; req: unknown }[] {
    return [...this.watched].map(([key, w]) => ({ key, kind: w.kind, req: w.req }));
  }

  /** The worker's inspection as last sent (fresh while someone listens to onInspect). */
  inspect(): Inspection {
    return this.inspection;
  }

  claims(): [string, ClaimRecord][] {
    return this.claimList;
  }

  malformed(): MalformedRecord[] {
    return this.malformedList;
  }

  /** Tells the worker this tab wants nothing now (pagehide); everything is re-sent on attach. */
  leave(): void {
    this.link?.({ t: "bye" });
    this.link = undefined;
  }

  destroy(): void {
    if (this.destroyed) return;
    for (const [id, w] of [...this.waiters]) {
      this.waiters.delete(id);
      w.cleanup();
      w.reject(abortError("shared-fetch: the store was destroyed"));
    }
    this.leave();
    this.destroyed = true;
    this.watched.clear();
    this.eventListeners.clear();
    this.inspectListeners.clear();
    this.mirror?.destroy();
  }
}

/** Snapshots from the worker are fresh clones: keep the old object when nothing changed, so React skips the render. */
function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  if (
    a.status !== b.status ||
    a.claim?.replicaId !== b.claim?.replicaId ||
    a.claim?.mine !== b.claim?.mine ||
    a.claim?.stale !== b.claim?.stale
  )
    return false;
  if (a.error?.message !== b.error?.message || a.error?.status !== b.error?.status) return false;
  return a.data === b.data || JSON.stringify(a.data) === JSON.stringify(b.data);
}
