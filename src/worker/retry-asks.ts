import type { OutcomeError } from "../core/fetcher.ts";
import type { TabMessage, WorkerMessage } from "./protocol.ts";
import { RETRY_ASK_MS, type RetryAnswer } from "./retry-wire.ts";

/**
 * The worker's open questions to one tab about its retry policies (functions stay in the tab):
 * each is answered by the tab, or by nobody within RETRY_ASK_MS, or dropped when the tab leaves;
 * no answer means no retry.
 */
export class RetryAsks {
  private readonly open = new Map<number, [done: (answer: RetryAnswer | undefined) => void, question: WorkerMessage, arm: () => void]>();
  private nextId = 1;

  /** `post` says whether a tab heard it (a standby speaks to none before the hello). */
  constructor(private readonly post: (message: WorkerMessage) => boolean) {}

  ask(waiter: number, failureCount: number, error: OutcomeError): Promise<RetryAnswer | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // The bound runs once a tab heard the question: a busy tab's late hello asks it again.
      const arm = () => (clearTimeout(timer), (timer = setTimeout(() => done(undefined), RETRY_ASK_MS)));
      const done = (answer: RetryAnswer | undefined) => {
        clearTimeout(timer);
        this.open.delete(id);
        resolve(answer);
      };
      const plain = { message: error.message, ...(error.status !== undefined ? { status: error.status } : {}) };
      const question: WorkerMessage = { t: "retry?", id, waiter, failureCount, error: plain };
      this.open.set(id, [done, question, arm]);
      if (this.post(question)) arm();
    });
  }

  answer(msg: Extract<TabMessage, { t: "retry" }>): void {
    this.open.get(msg.id)?.[0]({ retry: msg.retry, delayMs: msg.delayMs });
  }

  /**
   * The tab left: nobody will answer. `kept`: it said hello again keeping these asks, whose
   * questions are asked again (asked of a standby before the hello, they reached no tab).
   */
  dropAll(kept?: Set<number>): void {
    for (const [done, question, arm] of [...this.open.values()]) {
      if (!kept?.has((question as { waiter: number }).waiter)) done(undefined);
      else if (this.post(question)) arm();
    }
  }
}
