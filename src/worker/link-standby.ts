import { letGo, startStandby, type Standby } from "./standby.ts";
import type { TabLock } from "./tab-lock.ts";
import { STANDBY_AFTER_TAKEOVER_MS } from "./worker-bounds.ts";
import type { SharedWorkerLike, WorkerLinkOptions } from "./worker-start.ts";

/**
 * The standby half of a WorkerLink (worker-link.ts): the next generation's worker, started in
 * advance once the live one is ready, turned to at its death, and started again when it dies
 * first. The link's own half, from the hello to a death, is the WorkerLink's.
 */
export abstract class LinkStandby {
  protected abstract readonly o: WorkerLinkOptions;
  protected abstract readonly tabLock: TabLock;
  protected abstract generation: number;
  protected abstract worker: SharedWorkerLike | undefined;
  protected abstract hidden: boolean;
  protected abstract stopped: boolean;
  /**
   * The next generation's worker, started by a tab that did not start the current one (so it
   * lives in another renderer). It loads its script and waits: it opens no doc, database or
   * socket before a hello. When the current worker dies, the tabs say hello to this one.
   */
  protected standby: Standby | undefined;
  /** The live worker as its `ready` named it: a standby that died is started again for it. */
  protected live: { generation: number; lock: string; replica: string } | undefined;
  /** Watches the standby this tab turned to, until it answers (see WorkerLink's connect). */
  protected standbyWatch: (() => void) | undefined;
  protected standbyTimer: ReturnType<typeof setTimeout> | undefined;
  /** The generation this tab first connected to: a later one follows a takeover. */
  protected firstGeneration = 0;

  // The link's: a standby turned to that dies before it answers is dropped for a fresh worker.
  protected abstract dropWorker(): void;
  protected abstract connect(): void;

  /**
   * The live worker of `generation` answered `ready` (its lock `lock`, its replica `replica`): its
   * standby starts here where `host` is false (a standby started in the live worker's renderer
   * would die with it), or is sent this tab's asks if it stands already.
   */
  protected readyStandby(generation: number, lock: string, replica: string, host: boolean | undefined): void {
    if (this.o.standby !== false && host === false && this.standby?.generation !== generation + 1) {
      const start = () => this.startStandby(generation, lock, replica);
      // After a takeover the next standby waits: its boot (a script, a doc synced from this
      // worker) would compete for the CPU with the takeover's request and its delivery.
      if (generation > this.firstGeneration) {
        clearTimeout(this.standbyTimer);
        this.standbyTimer = setTimeout(start, STANDBY_AFTER_TAKEOVER_MS);
      } else start();
    } else if (this.standby?.generation === generation + 1) {
      const { port } = this.standby.worker;
      this.o.store.shadow((m) => port.postMessage(m));
    }
  }

  /** Starts the next generation's worker for the live one of `generation` and sends it this tab's asks. */
  private startStandby(generation: number, lock: string, replica: string): void {
    if (this.stopped || this.hidden || generation !== this.generation || this.standby?.generation === generation + 1) return;
    this.standby = startStandby(this.o, generation, lock, replica, this.tabLock.name, (next) => this.standbyGone(next)) ?? this.standby;
  }

  /** A standby's lock was let go: it died, most likely with the renderer of the tab that started it (or its watch was refused). */
  private standbyGone(worker: SharedWorkerLike): void {
    if (this.stopped || this.hidden) return;
    // Refused, a standby not turned to stands on, unwatched (see watchStandby).
    if (this.standby?.worker === worker && this.standby.stopWatch) {
      letGo(this.standby, false);
      this.standby = undefined;
      // Its successor starts now, from this tab (or the first tab to hear of it): the live worker
      // may die next, and without a standby that takeover would wait for a cold worker.
      const live = this.live;
      if (live?.generation === this.generation) this.startStandby(live.generation, live.lock, live.replica);
      return;
    }
    // The standby this tab turned to died before it answered, or is not watched after all: a fresh worker of its generation.
    if (this.worker !== worker || !this.standbyWatch) return;
    this.dropWorker();
    this.connect();
  }
}
