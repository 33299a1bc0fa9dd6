import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { Snapshot } from "../core/types.ts";
import { ASKED_AT } from "../core/store-options.ts";
import { toWire, type TabMessage, type WorkerMessage } from "./protocol.ts";
import type { RetryAsks } from "./retry-asks.ts";
import { answerRetry, retryFromWire } from "./retry-wire.ts";
import type { SessionDeps } from "./session-deps.ts";
import { askStore, resultInfoOf } from "./store-asks.ts";

/**
 * Serves one ask (ensure, refetch) of a tab with the worker's store. `waiters` holds the tab's
 * asks by their id, each with an AbortController, so the store aborts the request once every tab
 * that waited for it left (invariant 11); `retryAsks` puts the tab's retry policy's questions to it.
 */
export function serveAsk(
  store: SharedFetchStoreWithExtras,
  msg: Extract<TabMessage, { t: "ensure" }>,
  waiters: Map<number, AbortController>,
  retryAsks: RetryAsks,
  deps: Pick<SessionDeps, "ask" | "retries">,
  post: (message: WorkerMessage) => void,
): void {
  const controller = new AbortController();
  waiters.set(msg.id, controller);
  const { signal } = controller;
  let key: string;
  let running: Promise<Snapshot>;
  try {
    const asking = () => waiters.get(msg.id) === controller;
    const retry = retryFromWire(
      msg.retry,
      // The tab that asked runs its policy; once its ask is withdrawn, another ask still waiting
      // for the key answers with its own (as its replica would take the request over with it),
      // else nobody: no retry.
      (count, error) => (asking() ? retryAsks.ask(msg.id, count, error) : answerRetry(deps.retries?.(key, asking), count, error)),
      // TanStack shows the wait as fetchStatus "paused": the tab is told as it begins and ends.
      (on) => void (asking() && post({ t: "paused", id: msg.id, on })),
    );
    const opts = {
      signal,
      ...(msg.leaseMs !== undefined ? { leaseMs: msg.leaseMs } : {}),
      ...(msg.at !== undefined ? { [ASKED_AT]: msg.at } : {}),
      ...(retry ? { retry } : {}),
    };
    key = msg.kind === "fetch" ? store.keyOf(msg.req as never) : store.programKeyOf(msg.req as never);
    running = askStore(store, msg, opts);
    if (retry) deps.ask?.(key, { policy: retry, asking }, signal, running);
  } catch (error) {
    waiters.delete(msg.id);
    return post({ t: "rejected", id: msg.id, error: toWire(error) });
  }
  running.then(
    (snap) => {
      if (waiters.get(msg.id) !== controller) return;
      waiters.delete(msg.id);
      post({ t: "settled", id: msg.id, key, snap, ...resultInfoOf(store, msg.kind, msg.req) });
    },
    (error: unknown) => {
      if (waiters.get(msg.id) !== controller) return;
      waiters.delete(msg.id);
      post({ t: "rejected", id: msg.id, error: toWire(error) });
    },
  );
}
