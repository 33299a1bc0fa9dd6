import { postToTab, type PortLike } from "./port.ts";
import type { WorkerMessage } from "./protocol.ts";

/**
 * What the worker sends one tab (see TabSession, tab-session.ts): batched once per microtask, and
 * kept unheard while the worker is a standby that serves the tab's asks in advance.
 */
export abstract class TabOutbox {
  protected abstract readonly port: PortLike;
  private readonly outbox: WorkerMessage[] = [];
  protected closed = false;
  /**
   * The tab's asks reach this standby in advance, before any hello: served by its idle store
   * (which cannot claim before promotion), answered to nobody — the tab hears from the live worker.
   */
  protected shadowing = false;
  /**
   * Answers to the tab's asks given while shadowing (the live worker's result, or the takeover's
   * own before the tab's hello came), and word of a retry's offline wait: a hello that keeps the
   * ask gets them, not a second request.
   */
  protected readonly unheard = new Map<number, WorkerMessage>();

  /**
   * Messages go out once per microtask, in one batch: a result reaches a tab as one message (its
   * snapshot, the waiters' settles and the events together; one structured clone of the data,
   * which the settles share) instead of one task per message in every tab's renderer.
   */
  protected post(message: WorkerMessage): void {
    if (this.closed) return;
    if (this.shadowing) {
      if (message.t === "settled" || message.t === "rejected" || message.t === "paused") this.unheard.set(message.id, message);
      return;
    }
    this.outbox.push(message);
    if (this.outbox.length === 1) queueMicrotask(this.flush);
  }

  private readonly flush = (): void => {
    const messages = this.outbox.splice(0);
    if (this.closed || messages.length === 0) return;
    if (messages.length === 1 || !postToTab(this.port, { t: "batch", messages })) for (const m of messages) postToTab(this.port, m);
  };
}
