import type { OutcomeError } from "../core/fetcher.ts";
import type { TabMessage, WorkerMessage } from "./protocol.ts";
import { RETRY_ASK_MS, type RetryAnswer } from "./retry-wire.ts";

/**
 * The worker's open questions to one tab about its retry policies (functions stay in the tab):
 * each is answered by the tab, or by nobody within RETRY_ASK_MS, or dropped when the tab leaves;
 * no answer means no retry.
 */
export class RetryAsks {
  private readonly open = new Map<number, (answer: RetryAnswer | undefined) => void>();
  private nextId = 1;

  constructor(private readonly post: (message: WorkerMessage) => void) {}

  ask(waiter: number, failureCount: number, error: OutcomeError): Promise<RetryAnswer | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), RETRY_ASK_MS);
      const done = (answer: RetryAnswer | undefined) => {
        clearTimeout(timer);
        this.open.delete(id);
        resolve(answer);
      };
      this.open.set(id, done);
      const plain = { message: error.message, ...(error.status !== undefined ? { status: error.status } : {}) };
      this.post({ t: "retry?", id, waiter, failureCount, error: plain });
    });
  }

  answer(msg: Extract<TabMessage, { t: "retry" }>): void {
    this.open.get(msg.id)?.({ retry: msg.retry, delayMs: msg.delayMs });
  }

  /** The tab left: nobody will answer. */
  dropAll(): void {
    for (const done of [...this.open.values()]) done(undefined);
  }
}
