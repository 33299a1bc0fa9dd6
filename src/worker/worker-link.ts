import { answerWait } from "./answer-wait.ts";
import { onPageTransitions } from "./page-transitions.ts";
import { watchLock, type PortLike } from "./port.ts";
import { parseWorkerMessage } from "./parse-worker-message.ts";
import type { TabMessage } from "./protocol.ts";
import { LinkStandby } from "./link-standby.ts";
import { letGo } from "./standby.ts";
import { tabLock, type TabLock } from "./tab-lock.ts";
import { failedKey, liveGeneration, readGeneration, resumedGeneration, writeGeneration } from "./worker-generations.ts";
import { removeStored, writeStored } from "../core/local-storage.ts";
import { errorText, helloOf, pages, spawn, type SharedWorkerLike, type WorkerLinkOptions } from "./worker-start.ts";

export type { SharedWorkerLike, WorkerLinkOptions };

/**
 * Keeps one tab connected to the browser's live replica worker. The tab holds a Web Lock for its
 * life (the worker queues on it: granted = the tab died, since a MessagePort has no close event),
 * and queues on the worker's lock: granted = the worker died (it lives in the renderer of the tab
 * that started it, so that tab's crash kills it). Then every tab starts the next generation's
 * worker, which takes the dead one's claims over by its released lock, and re-sends what it wants.
 */
export class WorkerLink extends LinkStandby {
  protected generation = 0;
  protected worker: SharedWorkerLike | undefined;
  /**
   * The worker started before this tab knew which generation lives (see `begin`), and its load
   * error, should one come before `connect` listens.
   */
  private early: { generation: number; worker: SharedWorkerLike; error?: string } | undefined;
  /** The live worker's lock, watched once its `ready` named it. */
  private stopWatch: (() => void) | undefined;
  protected hidden = false;
  protected stopped = false;
  /** Ends the wait from the hello to the worker's answer (see answerWait). */
  private endWait: (() => void) | undefined;
  protected readonly tabLock: TabLock;
  private readonly offPage: () => void;

  constructor(protected readonly o: WorkerLinkOptions) {
    super();
    this.tabLock = tabLock(o.locks, o.tabId);
    if (!pages.has(o.locks)) pages.set(o.locks, o.tabId);
    this.offPage = onPageTransitions(
      (event) => this.hide(event),
      (event) => this.show(event),
    );
    void this.begin();
  }

  private async begin(): Promise<void> {
    const stored = readGeneration(this.o.config.name);
    // The generation this browser last wrote is the live one unless a takeover went unrecorded:
    // its worker starts now, so that its script loads and evaluates while this tab agrees the
    // browser id and asks Web Locks which generation lives (not without storage to read: a guess
    // would start a worker only to drop it).
    // A microtask later: a store destroyed at once (React StrictMode's double effect) starts none, so
    // the page's next store connects first, and the worker tells it it is the host.
    if (stored !== undefined) queueMicrotask(() => this.stopped || this.startEarly(stored));
    await this.o.before?.catch(() => {});
    this.generation = Math.max(stored ?? 0, await liveGeneration(this.o.locks, this.o.config.name));
    this.firstGeneration = this.generation;
    this.connect();
  }

  private startEarly(generation: number): void {
    const worker = spawn(this.o, generation);
    if (!worker) return;
    const early: NonNullable<WorkerLink["early"]> = { generation, worker };
    worker.addEventListener?.("error", (event) => void (early.error ??= errorText(event)));
    this.early = early;
  }

  protected connect(): void {
    if (this.stopped || this.hidden) return;
    const standby = this.standby;
    this.standby = undefined;
    let ready: SharedWorkerLike | undefined;
    // Turned to only once its lock is watched (see watchStandby), so its death is heard. Until it
    // answers, that death (its renderer crashed, maybe with the live worker's) sends this tab to
    // a fresh worker of the same generation (standbyGone), not into the answer bound.
    if (standby?.generation === this.generation && standby.stopWatch) {
      ready = standby.worker;
      this.standbyWatch = standby.stopWatch;
    } else if (standby) letGo(standby, true);
    let early = this.early;
    this.early = undefined;
    if (early && early.generation !== this.generation) {
      // A later generation lives: the worker started on the stored one is not used.
      early.worker.port.close();
      early = undefined;
    }
    const worker = early?.worker ?? ready ?? spawn(this.o, this.generation);
    if (!worker) return this.fail("the SharedWorker could not be started");
    this.worker = worker;
    worker.addEventListener?.("error", (event) => {
      if (this.worker === worker) this.fail(errorText(event), true);
    });
    if (early?.error !== undefined) return this.fail(early.error, true);
    const port = worker.port;
    port.addEventListener("message", (event: MessageEvent) => {
      if (this.worker === worker) this.onMessage(event.data);
    });
    // An answer that cannot be read is lost: the tab would wait for it for good.
    port.addEventListener("messageerror", () => {
      if (this.worker === worker) this.fail("a message from the SharedWorker could not be read");
    });
    port.start?.();
    void this.hello(port);
  }

  private async hello(port: PortLike): Promise<void> {
    // The tab's lock is held before the worker hears of it: the worker's queued request then means death.
    const held = this.tabLock.hold();
    try {
      await held;
    } catch (error) {
      // Refused (an opaque origin's SecurityError): the worker takes a free tab lock for the tab's death.
      if (this.tabLock.holds(held)) this.fail(`Web Locks refused this tab's lock (${String(error)})`, false, true);
      return;
    }
    // Let go while it waited (destroyed, or hidden: pagehide), and asked for again by a later
    // hello if the page was shown again: that hello speaks.
    if (this.stopped || this.hidden || !this.tabLock.holds(held)) return;
    port.postMessage(helloOf(this.o, this.tabLock.name));
    // What the tab wants goes right behind the hello, not after the worker's answer: a port keeps
    // order, and the worker holds these until its doc is open (a takeover saves a round trip).
    if (this.worker?.port !== port) return;
    this.o.store.attach((m) => port.postMessage(m));
    const generation = this.generation;
    this.endWait?.();
    // A standby turned to is watched already (standbyWatch).
    this.endWait = answerWait(
      this.o,
      port,
      this.tabLock.name,
      generation,
      !this.standbyWatch,
      (reason, load) => this.fail(reason, load),
      (lock) => this.watchWorker(lock, generation),
    );
  }

  /** Watches the lock of the worker of `generation` (before its `ready` too: it may die unanswering). */
  private watchWorker(lock: string, generation: number): () => void {
    // Unwatched, the worker's death would go unheard and the tab's asks pending for good.
    const refused = (error: unknown) => this.fail(`Web Locks refused to watch the SharedWorker's lock (${String(error)})`, false, true);
    return watchLock(this.o.locks, lock, () => this.dead(generation), refused);
  }

  /** This tab gives up on workers for good and becomes a replica of its own (onFail). */
  private fail(reason: string, load?: boolean, noLocks?: boolean): void {
    if (this.stopped) return;
    if (load) writeStored(failedKey(this.o.config.name, this.generation), "1");
    console.error(`shared-fetch: ${reason}; this tab is a replica of its own now`);
    // Whatever the worker got from this tab is withdrawn, should it ever start.
    this.o.store.leave();
    this.stop();
    this.o.onFail?.(reason, noLocks);
  }

  private onMessage(data: unknown): void {
    const msg = parseWorkerMessage(data);
    if (msg?.t === "batch") {
      for (const m of msg.messages) if (!this.stopped) this.onMessage(m);
      return;
    }
    if (msg?.t === "ready") {
      this.endWait?.();
      this.standbyWatch?.();
      this.standbyWatch = undefined;
      const generation = this.generation;
      removeStored(failedKey(this.o.config.name, generation));
      this.live = { generation, lock: msg.lock, replica: msg.replicaId };
      this.stopWatch?.();
      this.stopWatch = this.watchWorker(msg.lock, generation);
      this.o.store.served(msg.replicaId);
      if (msg.alone) this.o.onAlone?.();
      this.readyStandby(generation, msg.lock, msg.replicaId, msg.host);
      return;
    }
    if (msg?.t === "refused") return this.fail(`the SharedWorker refused this tab: ${msg.message}`);
    if (msg?.t === "standing") return;
    this.o.store.receive(data, () => msg);
  }

  /** Lets go of the worker this tab turned to: it died, or died before it answered. */
  protected dropWorker(): void {
    this.endWait?.();
    this.o.store.detach();
    this.standbyWatch?.();
    this.standbyWatch = undefined;
    // Its port may reach a worker that lives: a fresh one of the dead one's name, started for this
    // port before the browser let go of the dead one's lock. It drops what this tab asked there
    // (it would run it beside the next worker) and may retire (the tab's lock keeps it otherwise).
    this.worker?.port.postMessage({ t: "bye", gone: true } satisfies TabMessage);
    this.worker?.port.close();
    this.worker = undefined;
  }

  /** The worker of `generation` died, or is left (see resume): the tab turns to generation `next`. */
  private dead(generation: number, next = generation + 1): void {
    if (this.stopped || generation !== this.generation) return;
    this.dropWorker();
    this.stopWatch = undefined;
    this.generation = next;
    writeGeneration(this.o.config.name, this.generation);
    this.connect();
  }

  // pagehide: this tab wants nothing now, and lets go of its lock (a held lock keeps it out of
  // the back/forward cache). pageshow from that cache: hold it again and say hello again.
  private hide(event: PageTransitionEvent): void {
    if (this.hidden) return;
    this.hidden = true;
    this.endWait?.();
    this.o.store.leave(event.persisted === false);
    this.stopWatch?.();
    this.stopWatch = undefined;
    // The standby is turned to again only once it says it stands again (see resume).
    if (this.standby) letGo(this.standby, false);
    this.standby = undefined;
    this.tabLock.letGo();
  }

  private show(event: PageTransitionEvent): void {
    if (!event.persisted || !this.hidden) return;
    this.hidden = false;
    void this.resume();
  }

  private async resume(): Promise<void> {
    // The lock of this generation's worker, if it answered before the page was hidden.
    const lock = this.live?.generation === this.generation ? this.live.lock : undefined;
    const next = await resumedGeneration(this.o.locks, this.o.config.name, this.generation, lock);
    if (!this.stopped && !this.hidden) this.dead(this.generation, next);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.endWait?.();
    clearTimeout(this.standbyTimer);
    this.offPage();
    this.stopWatch?.();
    this.standbyWatch?.();
    this.worker?.port.close();
    if (this.standby) letGo(this.standby, false);
    this.early?.worker.port.close();
    this.tabLock.letGo();
  }
}
