/**
 * Issue "time to data", "a settle window sized by measured sync": through Hocuspocus the round
 * trips are read off the acks of this replica's own updates (the provider's count of updates not
 * acked yet: each rise a send, each fall the oldest one's ack). The provider is stood in for by an
 * emitter with its two events; the count as the real provider moves it: reset to 1 when a
 * connection starts its sync, down to 0 once synced, then +1 per update sent and -1 per ack.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ObservableV2 } from "lib0/observable";
import { MAX_IN_FLIGHT, observeUpdateTrips } from "../src/hocuspocus/update-trips.ts";

type Events = { unsyncedChanges: (data: { number?: number }) => void; open: (data: { number?: number }) => void };

function provider() {
  const emitter = new ObservableV2<Events>();
  let count = 0;
  const set = (n: number) => emitter.emit("unsyncedChanges", [{ number: (count = n) }]);
  return {
    emitter,
    /** A new connection: "open", then the reset its sync makes, then synced. */
    connect: () => (emitter.emit("open", [{}]), set(1), set(0)),
    send: () => set(count + 1),
    ack: () => set(Math.max(0, count - 1)),
    count: () => count,
    set,
  };
}

describe("observeUpdateTrips (Hocuspocus)", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("pairs each ack with the oldest update in flight: one sample per ack, in order", () => {
    const p = provider();
    const { samples } = observeUpdateTrips(p.emitter);
    p.connect();
    p.send();
    vi.advanceTimersByTime(5);
    p.send();
    vi.advanceTimersByTime(15);
    p.ack(); // the first: sent 20 ms ago
    expect(samples.count).toBe(1);
    expect(samples.p95()).toBe(20);
    vi.advanceTimersByTime(10);
    p.ack(); // the second: sent 25 ms ago
    expect(samples.count).toBe(2);
    expect(samples.p95()).toBe(25);
  });

  it("counts nothing on a connection until its count first falls to 0 (the reset of its sync)", () => {
    const p = provider();
    const { samples } = observeUpdateTrips(p.emitter);
    p.emitter.emit("open", [{}]);
    p.set(1); // the reset: no update of ours behind it
    vi.advanceTimersByTime(40);
    p.send(); // 2: sent before the sync ended
    p.ack(); // 1
    p.ack(); // 0: tracking from here
    expect(samples.count).toBe(0);
    p.send();
    vi.advanceTimersByTime(7);
    p.ack();
    expect(samples.p95()).toBe(7);
  });

  it("a new connection drops what was in flight on the old one; stop() detaches", () => {
    const p = provider();
    const trips = observeUpdateTrips(p.emitter);
    p.connect();
    p.send(); // lost with the connection: never acked
    vi.advanceTimersByTime(500);
    p.connect();
    p.send();
    vi.advanceTimersByTime(3);
    p.ack();
    // 3 ms, not the 503 a pairing with the lost update would read.
    expect(trips.samples.p95()).toBe(3);
    trips.stop();
    p.send();
    vi.advanceTimersByTime(9);
    p.ack();
    expect(trips.samples.count).toBe(1);
  });

  it("past MAX_IN_FLIGHT unacked sends it pairs nothing until the count is back to 0 (no trip read too short)", () => {
    const p = provider();
    const { samples } = observeUpdateTrips(p.emitter);
    p.connect();
    for (let i = 0; i <= MAX_IN_FLIGHT; i++) p.send();
    vi.advanceTimersByTime(300);
    for (let i = 0; i < MAX_IN_FLIGHT; i++) {
      p.send(); // later sends: an ack paired with one of these would read 0 ms
      p.ack();
    }
    while (p.count() > 0) p.ack(); // the backlog acked: the count is back to 0
    expect(samples.count).toBe(0);
    p.send();
    vi.advanceTimersByTime(4);
    p.ack();
    expect(samples.count).toBe(1);
    expect(samples.p95()).toBe(4);
  });

  it("ignores an event without a count and a fall below 0", () => {
    const p = provider();
    const { samples } = observeUpdateTrips(p.emitter);
    p.connect();
    p.emitter.emit("unsyncedChanges", [{}]);
    p.ack(); // stays 0: an extra ack
    expect(samples.count).toBe(0);
  });
});
