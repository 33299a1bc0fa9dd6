import type * as Y from "yjs";
import type { RetryPolicy } from "../core/retry.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { LockManagerLike } from "./port.ts";
import type { BrowserConfig } from "./protocol.ts";
import type { TabSession } from "./tab-session.ts";

export type SessionDeps = {
  locks: LockManagerLike | undefined;
  /** The worker's store for an identity (made on first use) and the lock that says the worker lives. */
  open(config: BrowserConfig): Promise<Opened>;
  /**
   * Be the next generation's worker: a live doc now, the replica once the lock `watch` is released.
   * Resolves to the standby's own lock once held (none: this worker is no standby).
   */
  prepare(config: BrowserConfig, watch: string, replica?: string): Promise<string> | undefined;
  /** A standby's idle store for the asks a tab sends it in advance, if it has one for this tab. */
  shadow(config: BrowserConfig): Promise<SharedFetchStoreWithExtras | undefined>;
  /** The devtools' "crash this replica": the worker stops as if its renderer died. */
  crash(): void;
  /** Whether the hello of a session (`first`: its port connected first) comes from the page that started the worker. */
  host(first: boolean, page: string | undefined): boolean;
  /** Whether the worker reaches no other device (no connector, no `peers`): a tab that has a connector of its own warns. */
  alone?(): boolean;
  /** A message that failed validation: dropped (tests count these). */
  onMalformed?(data: unknown): void;
  onClosed(session: TabSession): void;
  /** A tab came or went (see TabSession.present): a session with no tab is kept only by its port (a hello may come back on it). */
  onPresence?(connecting?: boolean, session?: TabSession): void;
  /** An ask with a retry policy waits for `key` until `signal` aborts or `running` settles. */
  ask?(key: string, ask: LiveAsk, signal: AbortSignal, running: Promise<unknown>): void;
  /** The policy of another ask still waiting for `key` (not `self`), if any. */
  retries?(key: string, self: () => boolean): RetryPolicy | undefined;
};

/** The worker's store for a tab, its doc, and its lifetime lock (`held` once granted: then the tab is told). */
export type Opened = { store: SharedFetchStoreWithExtras; lock: string; doc: Y.Doc; held: Promise<unknown> };

export type LiveAsk = { policy: RetryPolicy; asking: () => boolean };
