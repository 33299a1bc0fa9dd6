import { TripSamples } from "../core/trips.ts";

/** What observeUpdateTrips reads of a HocuspocusProvider: its count of updates not yet acked. */
export type UnsyncedCounter = {
  on(event: "unsyncedChanges" | "open", listener: (data: { number?: number }) => void): unknown;
  off(event: "unsyncedChanges" | "open", listener: (data: { number?: number }) => void): unknown;
};

/**
 * Sends waiting for their ack at most. Past it (a connection that never acks, read-only, or a
 * burst the instance is slow to take) nothing is paired until the count is back to 0: dropping
 * the oldest instead would pair later acks with later sends and read trips too short.
 */
export const MAX_IN_FLIGHT = 256;

/**
 * Round trips to a Hocuspocus instance, observed on this replica's own writes (its claims among
 * them): the instance acks every update it applied with a sync-status message, in the order it
 * received them, and the provider counts the updates not acked yet. Each rise of that count is an
 * update sent, each fall the ack of the oldest one in flight. Nothing is counted on a connection
 * until its count first falls to 0: the provider resets it to 1 when it starts a sync, and what
 * was sent before then is not answered in the same way.
 */
export function observeUpdateTrips(provider: UnsyncedCounter, samples = new TripSamples()): { samples: TripSamples; stop(): void } {
  let inFlight: number[] = [];
  let tracking = false;
  let last = 0;
  const onCount = ({ number }: { number?: number }): void => {
    if (typeof number !== "number") return;
    const now = Date.now();
    if (!tracking) {
      tracking = number === 0;
      last = number;
      return;
    }
    for (; last < number; last++) inFlight.push(now);
    for (; last > number; last--) {
      const sent = inFlight.shift();
      if (sent !== undefined) samples.add(now - sent);
    }
    if (inFlight.length > MAX_IN_FLIGHT) {
      tracking = false;
      inFlight = [];
    }
  };
  // A new connection: the provider is about to reset its count for the sync it starts.
  const onOpen = (): void => {
    tracking = false;
    inFlight = [];
  };
  provider.on("unsyncedChanges", onCount);
  provider.on("open", onOpen);
  return {
    samples,
    stop: () => {
      provider.off("unsyncedChanges", onCount);
      provider.off("open", onOpen);
    },
  };
}
