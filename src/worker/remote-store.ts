import { abortError } from "../core/errors.ts";
import { fetchKey, programKey } from "../core/key.ts";
import { normalizeProgramRequest } from "../core/program-work.ts";
import { normalizeRequest } from "../core/request.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { checkedListener } from "../core/store-options.ts";
import type { EnsureOptions, Program, ProgramOptions, ProgramRequest, SharedRequest, Snapshot } from "../core/types.ts";
import type { Mode, ResultInfo, TabMessage, WorkerMessage, WorkKind } from "./protocol.ts";
import { HandOver, type LocalReplica } from "./hand-over.ts";
import { RemoteDevtools } from "./remote-devtools.ts";
import { RemoteInspector } from "./remote-inspector.ts";
import { RemoteViews } from "./remote-views.ts";
import { RemoteWaiters, type WaitOptions } from "./remote-waiters.ts";
import { waitOptions } from "./wait-options.ts";

/** How a tab's store reaches the worker: set while a worker serves it, undefined between workers. */
export type Link = (message: TabMessage) => void;

/**
 * A tab's store when the browser's replica lives in a SharedWorker: the same surface as
 * createSharedFetchStore's, spoken over the port. Snapshots are kept here, so `snapshot()` is
 * synchronous (useSyncExternalStore); what the tab still wants (waiters, subscriptions, the
 * inspector) is re-sent to each new worker, so a worker's death costs a takeover, not the tab's work.
 */
export class RemoteStore extends RemoteDevtools implements SharedFetchStoreWithExtras {
  private link: Link | undefined;
  /**
   * The next generation's worker, standing by: it gets this tab's asks too (and their
   * withdrawals), so that it waits on them in advance and takes them over the moment the live
   * worker dies, before any hello. Subscriptions and the devtools follow after the hello.
   */
  private shadowLink: Link | undefined;
  private workerReplicaId: string | undefined;
  protected readonly send = (message: TabMessage): void => {
    this.link?.(message);
    if (message.t === "ensure" || message.t === "abort" || message.t === "bye") this.shadowLink?.(message);
  };
  // An ask the live worker answered is withdrawn from the standby: it waits for nothing there.
  private readonly waiters = new RemoteWaiters(
    this.send,
    (key) => this.views.changed(key),
    (id) => this.shadowLink?.({ t: "abort", id }),
  );
  private readonly views = new RemoteViews(this.send, (key) => this.waiters.wants(key));
  protected readonly inspector: RemoteInspector;
  private handOver: HandOver | undefined;
  /** Worker messages that failed validation and were dropped. */
  malformedMessages = 0;

  constructor(
    readonly identity: string,
    private readonly leaseMs: number,
    private readonly programLeaseMs: number,
    private readonly fallbackId: string,
  ) {
    super();
    this.inspector = new RemoteInspector(this.send, fallbackId);
  }

  /** The worker's replica (every tab of the browser shows the same one); the tab's own id until a worker answered. */
  get replicaId(): string {
    return this.local?.replicaId ?? this.workerReplicaId ?? this.fallbackId;
  }

  /** Whether the worker failed and this tab is a replica of its own now. */
  get fellBack(): boolean {
    return this.local !== undefined;
  }

  /**
   * The worker failed (did not load, refused, never answered): from now on this store is a
   * front for the tab's own replica `local`. Open asks are asked there (their promises kept),
   * and subscriptions and devtools listeners follow it.
   */
  fallBack(local: LocalReplica): void {
    if (this.destroyed || this.handOver) return;
    this.leave();
    this.local = local;
    this.handOver = new HandOver(local);
    this.handOver.take({ waiters: this.waiters, views: this.views, inspector: this.inspector });
  }

  /** A worker was said hello to: send it everything this tab still wants. */
  attach(link: Link): void {
    if (this.destroyed || this.local) return;
    this.link = link;
    this.views.resend();
    this.waiters.resend();
    this.inspector.resend(true);
  }

  /** The standby worker gets this tab's asks from now on (see shadowLink), the open ones first. */
  shadow(link: Link): void {
    if (this.destroyed || this.local) return;
    this.shadowLink = link;
    this.waiters.resend(link);
  }

  /** The ids of this tab's open asks: a hello names them, and attach re-sends them right behind it. */
  openAsks(): number[] {
    return this.local ? [] : this.waiters.ids();
  }

  /** The worker answered the hello: it is this replica. */
  served(workerReplicaId: string): void {
    this.workerReplicaId = workerReplicaId;
    // A simulated crash is over for this tab once the next worker serves it (its inspection corrects the rest).
    if (this.inspector.dev.crashed) {
      this.inspector.dev = { crashed: false, networkPaused: false, heartbeatsStopped: false };
      this.inspector.changed();
    }
  }

  /** The worker died or the page was hidden: keep what is shown (still pending), send nothing until the next one. */
  detach(): void {
    this.link = undefined;
    // The standby becomes the worker: the hello on its port re-sends everything.
    this.shadowLink = undefined;
  }

  receive(data: unknown, parse: (d: unknown) => WorkerMessage | undefined): void {
    const msg = parse(data);
    if (!msg) {
      this.malformedMessages += 1;
      // Dropped (invariant 14), and said: an ask it answered would otherwise stay pending unexplained.
      // Named by its type: the fields of another build's message are no business of the console.
      return console.warn("shared-fetch: a message from the worker failed validation, t:", (data as { t?: unknown } | null)?.t);
    }
    switch (msg.t) {
      case "snap":
        return this.views.set(msg.key, msg.snap, msg.info);
      case "settled":
        // Stored before the ask goes: the listeners hear once, of the answer (not of the outcome it replaces).
        this.views.put(msg.key, msg.snap, msg.info);
        this.waiters.receive(msg);
        return this.views.changed(msg.key);
      case "rejected": {
        const key = this.waiters.receive(msg);
        return key === undefined ? undefined : this.views.changed(key);
      }
      case "retry?":
        return void this.waiters.receive(msg);
      case "paused":
        return this.waiters.paused(msg.id, msg.on);
      case "inspect":
      case "event":
      case "doc":
        return this.inspector.receive(msg);
      default:
        return;
    }
  }

  /** `opts` first: bad options are told before a bad request, as the store tells them. */
  private run(opts: WaitOptions, kind: WorkKind, mode: Mode, key: string, req: unknown): Promise<Snapshot> {
    if (this.destroyed) return Promise.reject(abortError("shared-fetch: the store was destroyed"));
    // An ensure the shown result is too old for makes the worker fetch again, as a refetch does.
    return this.waiters.run(kind, mode, key, req, opts, mode === "refetch" || this.views.outdated(key, opts.maxAgeMs, opts.askedAt));
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
    if (this.local) return this.local.ensure(req, opts);
    return this.guard(() => this.run(waitOptions(opts, this.leaseMs, "ensure"), "fetch", "ensure", this.keyOf(req), req));
  }

  refetch(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
    if (this.local) return this.local.refetch(req, opts);
    return this.guard(() => this.run(waitOptions(opts, this.leaseMs, "refetch"), "fetch", "refetch", this.keyOf(req), req));
  }

  snapshot(req: SharedRequest): Snapshot {
    if (this.local) return this.handOver!.read(this.keyOf(req), this.local.snapshot(req));
    return this.views.read(this.keyOf(req));
  }

  subscribe(req: SharedRequest, listener: () => void): () => void {
    if (this.local) return this.local.subscribe(req, listener);
    return this.views.watch("fetch", this.keyOf(req), req, checkedListener(listener));
  }

  /** Whether this tab's view of the key is current (a per-tab replica's always is). */
  hears(key: string): boolean {
    return this.local !== undefined || this.views.hears(key);
  }

  private kindKey(kind: WorkKind, req: SharedRequest | ProgramRequest): string {
    return kind === "fetch" ? this.keyOf(req as SharedRequest) : this.programKeyOf(req as ProgramRequest);
  }

  heard(kind: WorkKind, req: SharedRequest | ProgramRequest, signal?: AbortSignal): Promise<void> {
    if (this.local || this.destroyed) return Promise.resolve();
    return this.guard(() => this.views.heard(kind, this.kindKey(kind, req), req, signal));
  }

  look(kind: WorkKind, req: SharedRequest | ProgramRequest, done: () => void): () => void {
    return this.local || this.destroyed ? () => {} : this.views.look(kind, this.kindKey(kind, req), req, done);
  }

  resultInfo(req: SharedRequest | string): ResultInfo | undefined {
    if (this.local) return this.local.resultInfo(req);
    return this.views.info(this.keyOf(req));
  }

  ensureProgram(req: ProgramRequest, opts?: ProgramOptions): Promise<Snapshot<Program>> {
    if (this.local) return this.local.ensureProgram(req, opts);
    return this.askProgram(req, opts, "ensure");
  }

  /** Its signal withdraws this tab's interest; the worker aborts the resolution once no tab waits for it (invariant 11). */
  refetchProgram(req: ProgramRequest, opts?: ProgramOptions): Promise<Snapshot<Program>> {
    if (this.local) return this.local.refetchProgram(req, opts);
    return this.askProgram(req, opts, "refetch");
  }

  private askProgram(req: ProgramRequest, opts: ProgramOptions | undefined, mode: "ensure" | "refetch"): Promise<Snapshot<Program>> {
    return this.guard(() => {
      const wait = waitOptions(opts, this.programLeaseMs, `${mode}Program`);
      return this.run(wait, "program", mode, this.programKeyOf(req), req);
    }) as Promise<Snapshot<Program>>;
  }

  programSnapshot(req: ProgramRequest): Snapshot<Program> {
    if (this.local) return this.handOver!.read(this.programKeyOf(req), this.local.programSnapshot(req)) as Snapshot<Program>;
    return this.views.read(this.programKeyOf(req)) as Snapshot<Program>;
  }

  subscribeProgram(req: ProgramRequest, listener: () => void): () => void {
    if (this.local) return this.local.subscribeProgram(req, listener);
    return this.views.watch("program", this.programKeyOf(req), req, checkedListener(listener));
  }

  programResultInfo(req: ProgramRequest): ResultInfo | undefined {
    if (this.local) return this.local.programResultInfo(req);
    return this.views.info(this.programKeyOf(req));
  }

  /** The requests this tab shows (by key): only a tab that asked knows the headers and body behind a key. */
  shownRequests(): { key: string; kind: WorkKind; req: unknown }[] {
    return this.views.shown();
  }

  /** Tells the worker this tab wants nothing now (pagehide), or ever (`gone`); everything is re-sent on attach. */
  leave(gone?: boolean): void {
    this.send(gone ? { t: "bye", gone } : { t: "bye" });
    this.link = undefined;
    this.shadowLink = undefined;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.waiters.abortAll("shared-fetch: the store was destroyed");
    this.leave(true);
    this.destroyed = true;
    this.views.clear();
    // An open panel's last word: it shows this store's last view, marked as one.
    this.inspector.changed();
    this.inspector.destroy();
    this.local?.destroy();
  }
}
