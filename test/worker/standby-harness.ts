/**
 * Set-up shared by the standby tests that run real browser replicas side by side under Node
 * (test/worker/standby-*.test.ts): a replica per worker generation, a tab's port to one, and
 * waits on the event loop. Each registers its teardown in the test's `cleanups`.
 */
import type { FakeLocks } from "../../sim/fake-locks.ts";
import type { Host } from "../../sim/host.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import { parseWorkerMessage, type WorkerMessage } from "../../src/worker/protocol.ts";

export const poll = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
};
/** Lets every promise reaction queued by a delivered message run. */
export const drain = () => new Promise((r) => setImmediate(r));

export function replica(cleanups: (() => void)[], locks: FakeLocks, workerName: string, host: Host): BrowserReplica {
  const r = createBrowserReplica({
    locks: locks.forTab(workerName),
    lockName: workerName,
    fetch: host.fetchAs(workerName),
    store: { settleMs: 0 },
  });
  cleanups.push(() => r.destroy());
  return r;
}

/** A tab's port to `r`: what it posts, and the next worker message of a kind (batches read through). */
export function portTo(cleanups: (() => void)[], r: BrowserReplica) {
  const channel = new MessageChannel();
  r.accept(channel.port2 as unknown as MessagePort);
  const waiting: { t: string; resolve: (m: WorkerMessage) => void }[] = [];
  channel.port1.addEventListener("message", (event: MessageEvent) => {
    const msg = parseWorkerMessage(event.data);
    const all = msg?.t === "batch" ? (msg.messages.map(parseWorkerMessage).filter(Boolean) as WorkerMessage[]) : msg ? [msg] : [];
    for (const m of all) {
      const i = waiting.findIndex((w) => w.t === m.t);
      if (i >= 0) waiting.splice(i, 1)[0]!.resolve(m);
    }
  });
  channel.port1.start();
  cleanups.push(() => channel.port1.close());
  return {
    post: (m: unknown) => channel.port1.postMessage(m),
    next: (t: string) => new Promise<WorkerMessage>((resolve) => waiting.push({ t, resolve })),
  };
}
