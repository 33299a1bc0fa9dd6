import * as Y from "yjs";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { postToTab, watchLock, type PortLike } from "./port.ts";
import { watchForTab } from "./tab-watch.ts";
import { RetryAsks } from "./retry-asks.ts";
import type { Opened, SessionDeps } from "./session-deps.ts";
import { actOutDev } from "./store-asks.ts";
import { serveAsk } from "./tab-asks.ts";
import { tabViews } from "./tab-views.ts";
import { helloProblem, parseTabMessage } from "./parse-tab-message.ts";
import { PROTOCOL, toWire, type TabMessage } from "./protocol.ts";
import { TabOutbox } from "./tab-outbox.ts";

/**
 * One tab as the worker sees it: its waiters (each with an AbortController, so the store aborts
 * the request once every tab that waited for it left, invariant 11; served in tab-asks.ts), its
 * subscriptions and looks (tab-views.ts), and its Web Lock: granted to the worker means the tab
 * crashed or closed, and its interest is dropped.
 */
export class TabSession extends TabOutbox {
  private store: SharedFetchStoreWithExtras | undefined;
  private doc: Y.Doc | undefined;
  private readonly waiters = new Map<number, AbortController>();
  private readonly views = tabViews((m) => this.post(m));
  private watching: (() => void)[] = [];
  private stopWatchingTab: (() => void) | undefined;
  /** Messages that came behind a hello whose store is still opening, in order. */
  private opening: TabMessage[] | undefined;
  private hellos = 0;
  private readonly retryAsks = new RetryAsks((m) => (this.post(m), !this.shadowing));
  /** A tab is behind this port: it said hello (or asked as a standby's tab) and has not left since. */
  private here = false;

  constructor(
    protected readonly port: PortLike,
    private readonly deps: SessionDeps,
    /** This port connected first: its tab started the worker. */
    private readonly first = false,
  ) {
    super();
    port.addEventListener("message", this.onMessage);
    port.start?.();
  }

  private readonly onMessage = (event: MessageEvent): void => {
    const msg = parseTabMessage(event.data);
    if (!msg) {
      this.deps.onMalformed?.(event.data);
      // Dropped (invariant 14), and said: a tab of another build, or a broken one, is found here.
      // Named by its type: an ask's fields carry the request's headers and body.
      console.warn("shared-fetch worker: a tab message failed validation, t:", (event.data as { t?: unknown } | null)?.t);
      // A hello this worker cannot serve (a bad config, another build's): the tab learns why now,
      // and falls back, rather than after its timeout with nothing to say.
      const refusal = helloProblem(event.data);
      if (refusal !== undefined) {
        this.shadowing = false;
        this.post({ t: "refused", message: refusal });
      }
      return;
    }
    this.handleSafely(msg);
  };

  private handleSafely(msg: TabMessage): void {
    try {
      this.handle(msg);
    } catch (error) {
      console.warn("shared-fetch worker: a tab message failed", error);
    }
  }

  get present(): boolean {
    return this.here;
  }

  private setPresent(here: boolean): void {
    if (this.here === here) return;
    this.here = here;
    this.deps.onPresence?.(false, this);
  }

  private handle(msg: TabMessage): void {
    if (msg.t === "bye") {
      this.setPresent(false);
      if (msg.gone) return this.close();
    }
    if (msg.t === "hello") return void this.hello(msg);
    if (msg.t === "standby") return void this.standby(msg);
    if (this.opening) return void this.opening.push(msg);
    const store = this.store;
    if (!store) return;
    switch (msg.t) {
      case "ensure":
        return this.ensure(store, msg);
      case "abort":
        this.waiters.get(msg.id)?.abort();
        this.waiters.delete(msg.id);
        this.unheard.delete(msg.id);
        return;
      case "sub":
        return this.views.subscribe(store, msg.kind, msg.key, msg.req);
      case "look":
        return this.views.look(store, msg.kind, msg.key, msg.req);
      case "unlook":
        return this.views.unlook(msg.key);
      case "unsub":
        return this.views.unsubscribe(msg.key);
      case "watch":
        return this.watch(store, msg.inspect, msg.events, msg.doc === true);
      case "doc":
        // The tab's devtools acted on its mirror (evict, release): apply it here like any peer's update.
        if (this.doc) Y.applyUpdate(this.doc, msg.update, this);
        return;
      case "retry":
        return this.retryAsks.answer(msg);
      case "dev":
        return actOutDev(store, msg, this.deps.crash);
      case "bye":
        return this.dropInterest();
    }
  }

  private async standby(msg: Extract<TabMessage, { t: "standby" }>): Promise<void> {
    if (msg.v !== PROTOCOL) return;
    // The tab watches this lock to learn that the standby died (with the renderer it lives in).
    // Refused its own lock (a broken `locks`), the standby never stands: no tab watches it, nor turns to it at a takeover.
    void this.deps.prepare(msg.config, msg.watch, msg.replica)?.then(
      (lock) => void (this.closed || postToTab(this.port, { t: "standing", lock })),
      () => {},
    );
    if (msg.lock === undefined || this.store || this.opening) return;
    this.shadowing = true;
    const queued: TabMessage[] = [];
    this.opening = queued;
    const hellos = this.hellos;
    // The tab's lock is held before it asks anything: granted to us, the tab is gone (invariant 11).
    this.watchTab(msg.lock);
    this.setPresent(true);
    const store = await this.deps.shadow(msg.config).catch(() => undefined);
    // A hello came meanwhile: it re-sends all this tab wants.
    if (this.closed || hellos !== this.hellos) return;
    this.opening = undefined;
    if (!store) return;
    this.store = store;
    for (const queuedMsg of queued) this.handleSafely(queuedMsg);
  }

  private watchTab(lock: string): void {
    const { locks } = this.deps;
    this.stopWatchingTab?.();
    // Refused (a broken `locks`), the tab's crash would go unheard: its asks kept for good
    // (invariant 11), the worker never retired. A tab's port tells nothing of its death either.
    const refused = (error: unknown) => this.refuse(`Web Locks refused to watch this tab's lock (${String(error)})`);
    this.stopWatchingTab = locks ? watchLock(locks, lock, () => (this.dropInterest(), this.setPresent(false)), refused) : undefined;
  }

  /** The tab cannot be served: told why, it becomes a replica of its own. A hello under way ends here. */
  private refuse(message: string): void {
    this.hellos++;
    this.shadowing = false;
    this.dropInterest();
    this.setPresent(false);
    this.post({ t: "refused", message });
  }

  private async hello(msg: Extract<TabMessage, { t: "hello" }>): Promise<void> {
    this.shadowing = false;
    if (msg.v !== PROTOCOL) return this.post({ t: "refused", message: `protocol ${msg.v} asked, this worker speaks ${PROTOCOL}` });
    this.setPresent(true);
    // A tab back from the back/forward cache, or one that asked this standby in advance, says
    // hello: it re-sends what it still wants. An ask this standby waits on already stays (a
    // takeover under way for it is never left without a waiter, which would abort it and send
    // the request again; a refetch keeps the revision it asked for when it was new): its re-sent
    // twin is dropped.
    const kept = new Set(msg.resend);
    this.dropInterest(kept);
    for (const [id, answer] of this.unheard) {
      if (kept.has(id)) this.post(answer);
      else this.unheard.delete(id);
    }
    // Watched as the hello is read, and again once the store is open (below): a tab that waits
    // for this worker's answer learns by this request that its hello was read, by which worker.
    this.watchTab(msg.lock);
    // The tab sends what it wants right behind its hello: held until the store is there.
    const queued: TabMessage[] = [];
    this.opening = queued;
    const hellos = ++this.hellos;
    let opened: Opened;
    try {
      opened = await this.deps.open(msg.config);
    } catch (error) {
      return this.refuse(toWire(error).message);
    } finally {
      if (this.opening === queued) this.opening = undefined;
    }
    // Closed, or a newer hello (back from the back/forward cache) re-sends all this tab wants.
    if (this.closed || hellos !== this.hellos) return;
    this.store = opened.store;
    this.doc = opened.doc;
    // The tab holds this lock before it says hello: it is granted to us only once the tab is gone.
    this.watchTab(msg.lock);
    for (const queuedMsg of queued) this.handleSafely(queuedMsg);
    // The tab watches the lock `ready` names: it must be held before the tab hears of it. Refused
    // (a broken `locks`), the tab would never hear this worker die.
    try {
      await opened.held;
    } catch (error) {
      if (hellos === this.hellos) this.refuse(`Web Locks refused the SharedWorker's lock (${String(error)})`);
      return;
    }
    if (this.closed || hellos !== this.hellos) return;
    this.post({
      t: "ready",
      v: PROTOCOL,
      replicaId: opened.store.replicaId,
      identity: opened.store.identity,
      lock: opened.lock,
      host: this.deps.host(this.first, msg.page),
      ...(this.deps.alone?.() && { alone: true }),
    });
  }

  private ensure(store: SharedFetchStoreWithExtras, msg: Extract<TabMessage, { t: "ensure" }>): void {
    // Still waited on, or answered before the hello that re-sent it (see unheard).
    if (this.waiters.has(msg.id) || this.unheard.has(msg.id)) return;
    serveAsk(store, msg, this.waiters, this.retryAsks, this.deps, (m) => this.post(m));
  }

  private watch(store: SharedFetchStoreWithExtras, inspect: boolean, events: boolean, mirror: boolean): void {
    for (const off of this.watching) off();
    this.watching = watchForTab(store, this.doc, (m) => this.post(m), this, { inspect, events, mirror });
  }

  /** The tab left (crash, close, pagehide): its waiters are withdrawn (but those `kept`), its subscriptions ended. */
  dropInterest(kept?: Set<number>): void {
    for (const [id, controller] of this.waiters)
      if (!kept?.has(id)) {
        controller.abort();
        this.waiters.delete(id);
      }
    this.retryAsks.dropAll(kept);
    this.views.clear();
    for (const off of this.watching) off();
    this.watching = [];
  }

  close(): void {
    if (this.closed) return;
    this.dropInterest();
    this.closed = true;
    this.here = false;
    this.stopWatchingTab?.();
    this.port.removeEventListener("message", this.onMessage);
    this.port.close();
    this.deps.onClosed(this);
  }
}
