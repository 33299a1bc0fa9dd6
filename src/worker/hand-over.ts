import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { Program, ProgramOptions, ProgramRequest, SharedRequest, Snapshot } from "../core/types.ts";
import type { RemoteInspector } from "./remote-inspector.ts";
import type { RemoteViews } from "./remote-views.ts";
import type { RemoteWaiters } from "./remote-waiters.ts";

/** The tab's own replica a tab's store falls back to (connectBrowser's tab mode). */
export type LocalReplica = SharedFetchStoreWithExtras & {
  refetchProgram(req: ProgramRequest, opts?: ProgramOptions): Promise<Snapshot<Program>>;
};

const ASKED: Snapshot = Object.freeze({ status: "pending" }) as Snapshot;

/**
 * What a tab had open with the worker, handed to the tab's own replica when the worker failed:
 * each ask is asked there (its promise kept), each subscription and devtools listener follows it.
 * A handed-over ask reads pending until the replica answers it (invariant 8): a store that is
 * still starting reads idle.
 */
export class HandOver {
  /** Asks handed over and not settled yet, by key. */
  private readonly open = new Map<string, number>();

  constructor(readonly local: LocalReplica) {}

  /** Moves the tab's open asks, subscriptions and listeners over (once the store reads from `local`). */
  take(parts: { waiters: RemoteWaiters; views: RemoteViews; inspector: RemoteInspector }): void {
    const { local } = this;
    parts.waiters.moveTo((kind, mode, key, req, opts) => {
      // A program's ask keeps its lease and freshness demand too (a poll's, a mount's staleTime).
      const running =
        kind === "fetch"
          ? mode === "refetch"
            ? local.refetch(req as SharedRequest, opts)
            : local.ensure(req as SharedRequest, opts)
          : mode === "refetch"
            ? local.refetchProgram(req as ProgramRequest, opts)
            : local.ensureProgram(req as ProgramRequest, opts);
      this.open.set(key, (this.open.get(key) ?? 0) + 1);
      const done = () => {
        const n = (this.open.get(key) ?? 1) - 1;
        if (n > 0) this.open.set(key, n);
        else this.open.delete(key);
      };
      running.then(done, done);
      return running;
    });
    parts.views.moveTo((kind, req, listener) =>
      kind === "fetch" ? local.subscribe(req as SharedRequest, listener) : local.subscribeProgram(req as ProgramRequest, listener),
    );
    parts.inspector.moveTo(local);
  }

  /** The replica's snapshot of `key`, pending instead of idle while a handed-over ask waits. */
  read(key: string, snap: Snapshot): Snapshot {
    return snap.status === "idle" && this.open.has(key) ? ASKED : snap;
  }
}
