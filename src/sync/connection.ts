import type { Awareness } from "y-protocols/awareness";

/** What connectTabs and connectPeers hand back: one way of syncing a Y.Doc. */
export type Connection = {
  /**
   * Resolves once the connection's own source of truth has been read: IndexedDB for tabs (at once
   * without it), the server's state for peers. It never waits for other tabs, which may not exist.
   * It also resolves on destroy(), so teardown code that awaits it cannot hang.
   */
  whenSynced: Promise<void>;
  /**
   * Presence of the replicas reached through this connection, keyed by Y.Doc clientID. The local
   * state starts as `{}`; a missing state means the replica left (or went silent for 30 s).
   */
  awareness: Awareness;
  /** Idempotent. Tells the others this replica left, then releases every handle (Node can exit). */
  destroy(): void;
};

/**
 * Origin of the awareness removals that happen because *this* side lost its connection, as opposed
 * to a peer leaving. A store should not treat those peers as dead: it cannot tell either way.
 */
export { CONNECTION_LOST_ORIGIN as connectionLostOrigin } from "../core/presence.ts";
