import { abortError, SharedFetchInputError } from "../core/errors.ts";
import type { RetryPolicy } from "../core/retry.ts";
import { ASKED_AT } from "../core/store-options.ts";
import type { Snapshot } from "../core/types.ts";
import type { Mode, TabMessage, WireError, WorkerMessage, WorkKind } from "./protocol.ts";
import type { Wants } from "./remote-views.ts";
import { answerRetry, retryToWire } from "./retry-wire.ts";

type Waiter = {
  kind: WorkKind;
  mode: Mode;
  /** It makes the worker fetch again though an outcome is shown (a refetch, an outdated one). */
  newer: boolean;
  key: string;
  req: unknown;
  leaseMs?: number;
  maxAgeMs?: number;
  /** When the app asked (see ASKED_AT): sent with every message of the ask, handed over with it. */
  askedAt?: number;
  retry?: RetryPolicy;
  /**
   * Sent with every message of the ask: a re-send to the next worker must still skip the request
   * another replica sent before the call (the standby keeps the twin it got in advance instead).
   */
  skipInFlight?: boolean;
  signal?: AbortSignal;
  resolve(snap: Snapshot): void;
  reject(error: unknown): void;
  cleanup(): void;
};

export type WaitOptions = {
  signal?: AbortSignal;
  leaseMs?: number;
  maxAgeMs?: number;
  askedAt?: number;
  retry?: RetryPolicy;
  skipInFlight?: boolean;
  [ASKED_AT]?: number;
};

/**
 * A tab's open asks in SharedWorker mode (ensure, refetch, programs): each has an id the worker
 * answers by, is re-sent to each new worker until answered, and is withdrawn by its signal
 * (the worker then drops this tab's interest, invariant 11). The tab's retry policies stay here:
 * the worker asks for their verdict when they are functions.
 */
export class RemoteWaiters {
  private readonly waiters = new Map<number, Waiter>();
  private nextId = 1;

  constructor(
    private readonly send: (message: TabMessage) => void,
    /** A key's asked-or-not changed (its snapshot reads pending while asked). */
    private readonly changed: (key: string) => void,
    /** The worker answered ask `id` (settled or rejected). */
    private readonly answered: (id: number) => void = () => {},
  ) {}

  wants(key: string): Wants {
    let wants: Wants;
    for (const w of this.waiters.values()) if (w.key === key) wants = w.newer ? "newer" : (wants ?? "any");
    return wants;
  }

  /** The ids of the open asks (what resend sends). */
  ids(): number[] {
    return [...this.waiters.keys()];
  }

  /** Every open ask, as a new worker (or the standby, `to`) needs it. */
  resend(to: (message: TabMessage) => void = this.send): void {
    for (const [id, w] of this.waiters) to(message(id, w));
  }

  run(kind: WorkKind, mode: Mode, key: string, req: unknown, opts: WaitOptions, newer = mode === "refetch"): Promise<Snapshot> {
    const { signal, ...extra } = opts;
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const id = this.nextId++;
    return new Promise<Snapshot>((resolve, reject) => {
      const onAbort = () => {
        if (!this.waiters.delete(id)) return;
        this.send({ t: "abort", id });
        this.changed(key);
        reject(abortError(signal?.reason));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const w: Waiter = {
        kind,
        mode,
        newer,
        key,
        req,
        ...extra,
        ...(signal ? { signal } : {}),
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      };
      this.waiters.set(id, w);
      this.send(message(id, w));
      this.changed(key);
    });
  }

  /**
   * The worker's answer to an ask, or its retry question. Returns the answered ask's key: its view
   * changed, which the caller tells (after it stored the answer's snapshot, so the listeners hear
   * once, of the answer).
   */
  receive(msg: Extract<WorkerMessage, { t: "settled" | "rejected" | "retry?" }>): string | undefined {
    if (msg.t === "retry?") {
      // The worker's attempt failed and this tab's policy is a function: only the tab can run it.
      const policy = this.waiters.get(msg.waiter)?.retry;
      void answerRetry(policy, msg.failureCount, msg.error).then((answer) => this.send({ t: "retry", id: msg.id, ...answer }));
      return undefined;
    }
    const w = this.waiters.get(msg.id);
    if (!w) return undefined;
    this.waiters.delete(msg.id);
    w.cleanup();
    this.answered(msg.id);
    if (msg.t === "settled") w.resolve(msg.snap);
    else w.reject(fromWire(msg.error));
    return w.key;
  }

  /** The worker's retry for ask `id` waits for the connection, or no longer does: its policy's listener hears it. */
  paused(id: number, on: boolean): void {
    this.waiters.get(id)?.retry?.offline?.paused?.(on);
  }

  /** The tab became a replica of its own (the worker failed): each open ask is asked there, its promise kept. */
  moveTo(run: (kind: WorkKind, mode: Mode, key: string, req: unknown, opts: WaitOptions) => Promise<Snapshot>): void {
    for (const [id, w] of [...this.waiters]) {
      this.waiters.delete(id);
      w.cleanup();
      const { signal, leaseMs, maxAgeMs, retry, skipInFlight, askedAt } = w;
      const opts: WaitOptions = {
        ...(askedAt !== undefined ? { [ASKED_AT]: askedAt } : {}),
        ...(signal ? { signal } : {}),
        ...(skipInFlight ? { skipInFlight } : {}),
        ...(leaseMs !== undefined ? { leaseMs } : {}),
        ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
        ...(retry ? { retry } : {}),
      };
      run(w.kind, w.mode, w.key, w.req, opts).then(w.resolve, w.reject);
    }
  }

  /** The store is destroyed: every ask rejects with AbortError. */
  abortAll(reason: string): void {
    for (const [id, w] of [...this.waiters]) {
      this.waiters.delete(id);
      w.cleanup();
      w.reject(abortError(reason));
    }
  }
}

function message(id: number, w: Waiter): TabMessage {
  const retry = retryToWire(w.retry);
  return {
    t: "ensure",
    id,
    kind: w.kind,
    mode: w.mode,
    req: w.req,
    ...(w.leaseMs !== undefined ? { leaseMs: w.leaseMs } : {}),
    ...(w.maxAgeMs !== undefined ? { maxAgeMs: w.maxAgeMs } : {}),
    ...(w.askedAt !== undefined ? { at: w.askedAt } : {}),
    ...(retry ? { retry } : {}),
    ...(w.skipInFlight ? { skipInFlight: true as const } : {}),
  };
}

function fromWire(error: WireError): Error {
  if (error.name === "AbortError") return abortError(error.message);
  if (error.name === "SharedFetchInputError") return new SharedFetchInputError(error.message);
  return Object.assign(new Error(error.message), { name: error.name });
}
