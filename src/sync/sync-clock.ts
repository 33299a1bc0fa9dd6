import type { ConnectorInfo } from "../core/connectors.ts";

type ClockInfo = Required<Pick<ConnectorInfo, "whenSynced" | "syncTripMs" | "syncedSince" | "disconnectedSince">>;

/**
 * What a connector to a sync server tells the stores about its connection's state, kept from the
 * provider's events. `info.whenSynced` is what the stores' first claims wait for: the connector's
 * own `whenSynced`, or `giveUp()` once it failed before syncing (nobody races through a server
 * that is down, and the claims must not wait the stores' whole cap for it).
 */
export type SyncClock = {
  /** A socket opened: the initial sync starts (the provider sends its sync step 1 now). */
  opened(): void;
  synced(): void;
  /** Out of sync, the socket maybe still open. */
  lost(): void;
  /**
   * The socket closed (failed attempts included). With `keepWaiting`, one that opened and closed
   * before its sync leaves the waits for the next attempt, and says so (returns true).
   */
  closed(keepWaiting?: boolean): boolean | undefined;
  giveUp(): void;
  /**
   * While out of sync: a promise that ends at this connection's next sync or close (see
   * ConnectorInfo.resync); none once such a wait ended closed, until the connection syncs again.
   */
  resync(): Promise<void> | undefined;
  info: ClockInfo;
};

/**
 * Whether a socket the server or the link closed before its initial sync is a passing failure, whose
 * next attempt likely syncs: the first claims wait for it (within the stores' bound), else a claim
 * made before it sent a request another device had in flight. A link that dropped (no close frame:
 * 1006) and a server going away or restarting (1001, 1011 server error, 1012 service restart). Any
 * other close says none will sync soon (a refusal: 1008, 4401, 4403; a normal close) and, as the
 * app's own disconnect(), ends the wait at once.
 */
export const passingClose = (code: number | undefined): boolean => code === 1006 || code === 1001 || code === 1011 || code === 1012;

export function syncClock(whenSynced: Promise<void>): SyncClock {
  let syncedSince: number | undefined;
  // Never connected counts from now.
  let disconnectedSince: number | undefined = Date.now();
  /** When the current socket opened, until its initial sync; how long the last initial sync took. */
  let openedAt: number | undefined;
  let syncTrip: number | undefined;
  let giveUp!: () => void;
  const syncedOrFailed = new Promise<void>((resolve) => (giveUp = resolve));
  void whenSynced.then(giveUp, giveUp);
  let attempt: Promise<void> | undefined;
  let endAttempt = (): void => {};
  // A connection a claim waited for closed unsynced (the server down or out of reach): later
  // claims do not wait for the next attempt, until a sync, else each would wait out a hung connect.
  let failed = false;
  const end = (synced: boolean): void => {
    failed = !synced && (failed || attempt !== undefined);
    endAttempt();
    attempt = undefined;
  };
  const lost = (): void => {
    syncedSince = undefined;
    openedAt = undefined;
  };
  return {
    opened: () => {
      openedAt = Date.now();
      disconnectedSince = undefined;
    },
    synced: () => {
      syncedSince = Date.now();
      if (openedAt !== undefined) syncTrip = syncedSince - openedAt;
      openedAt = undefined;
      end(true);
    },
    lost,
    closed: (keepWaiting) => {
      const cut = keepWaiting && openedAt !== undefined;
      lost();
      disconnectedSince ??= Date.now();
      if (!cut) end(false);
      return cut;
    },
    giveUp,
    resync: () => (syncedSince === undefined && !failed ? (attempt ??= new Promise<void>((resolve) => (endAttempt = resolve))) : undefined),
    info: {
      whenSynced: syncedOrFailed,
      syncTripMs: () => syncTrip,
      syncedSince: () => syncedSince,
      disconnectedSince: () => disconnectedSince,
    },
  };
}
