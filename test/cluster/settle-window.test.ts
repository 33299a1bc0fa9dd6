/**
 * Issue "time to data", "no tax when alone" and "a settle window sized by measured sync": through
 * Hocuspocus too (no fence), a device with no replica of another browser present, in sync for
 * longer than the window, claims eagerly with no window, as through connectPeers; just after a
 * reconnect, or with another device present, its claim waits the window, sized from the acks of
 * the device's own updates (before its first write, bounded by its initial sync). The connector's
 * sync state follows its socket.
 */
import { describe, expect, it, vi } from "vitest";
import { connectorsOf } from "../../src/core/connectors.ts";
import { settleFor } from "../../src/core/settle-window.ts";
import { windowForTrip } from "../../src/core/trips.ts";
import { DEFAULT_SETTLE_MS, type ClaimRecord } from "../../src/index.ts";
import { nextEvent, until } from "../sync/wait.ts";
import { peer, uniqueRoom, useCluster, type Peer } from "./harness.ts";

const env = useCluster();

const connector = (p: Peer) => connectorsOf(p.doc).find((c) => c.crossDevice);
const syncedSince = (p: Peer): number | undefined => connector(p)?.syncedSince?.();
const tripOf = (p: Peer): number | undefined => connector(p)?.tripMs?.();

/** Asks for `url` and returns the claim this device had standing when it dispatched. */
async function claimOf(p: Peer, url: string): Promise<ClaimRecord | undefined> {
  let standing: ClaimRecord | undefined;
  const off = p.store.onEvent((e) => {
    if (e.type === "dispatched") standing = p.store.claims().find(([, c]) => c.replicaId === p.store.replicaId)?.[1];
  });
  try {
    await expect(p.store.ensure({ url })).resolves.toMatchObject({ status: "success" });
  } finally {
    off();
  }
  return standing;
}

const pastTheWindow = () => new Promise((resolve) => setTimeout(resolve, DEFAULT_SETTLE_MS + 10));

describe("the settle window through Hocuspocus (cluster on 127.0.0.1, default store options)", () => {
  it("a lone device in sync for longer than the window claims eagerly; just after a reconnect it waits the window", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const room = uniqueRoom("alone");
    const a = peer(cluster, room, [cluster.urls[0]!], { sizedWindow: true });
    await a.conn.whenSynced;
    expect(syncedSince(a)).toBeGreaterThan(0);
    await pastTheWindow();
    // What the devtools show for it: no window, and why.
    expect(a.store.inspect().settle).toEqual({ ms: 0, eager: true, why: "alone" });
    expect(await claimOf(a, host.url(`/${room}/first`))).toMatchObject({ eager: true });
    expect(host.count(`/${room}/first`)).toBe(1);

    // The socket goes: not in sync. Back and synced: in sync since then, not for the window yet.
    const closed = nextEvent(a.conn.websocket, "disconnect");
    a.conn.websocket.disconnect();
    await closed;
    expect(syncedSince(a)).toBeUndefined();
    const before = Date.now();
    await a.conn.websocket.connect();
    await until(a.conn.provider, "synced", () => syncedSince(a) !== undefined);
    expect(syncedSince(a)).toBeGreaterThanOrEqual(before);
    // The first claim's updates were acked: the window is sized from those trips now.
    expect(a.store.inspect().settle).toMatchObject({ eager: false, why: "measured-trip", tripMs: tripOf(a) });
    const justSynced = await claimOf(a, host.url(`/${room}/second`));
    expect(justSynced).toBeDefined();
    expect(justSynced!.eager).toBeUndefined();
  });

  it("with a device of another browser present (on the other instance), a claim waits the window and is not eager", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const room = uniqueRoom("together");
    const a = peer(cluster, room, [cluster.urls[0]!], { sizedWindow: true });
    const b = peer(cluster, room, [cluster.urls[1]!], { sizedWindow: true });
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    await until(a.conn.awareness, "change", () => a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present));
    await pastTheWindow();
    const claim = await claimOf(a, host.url(`/${room}/items`));
    expect(claim).toBeDefined();
    expect(claim!.eager).toBeUndefined();
    expect(host.count(`/${room}/items`)).toBe(1);
  });

  it("the window is sized from the acks of the device's own updates: bounded by the initial sync before it writes, two trips at p95 + 10 after", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const room = uniqueRoom("trips");
    const a = peer(cluster, room, [cluster.urls[0]!], { sizedWindow: true });
    await a.conn.whenSynced;
    const withOthers = () =>
      settleFor({ doc: a.doc, exactTabs: false, fixedMs: undefined, defaultMs: DEFAULT_SETTLE_MS, elsewhere: () => 1 });
    expect(tripOf(a)).toBeUndefined();
    // No trip yet: the initial sync's time bounds one, and may only shorten the default.
    const bound = connector(a)?.syncTripMs?.();
    expect(bound).toBeGreaterThanOrEqual(0);
    const bounded = windowForTrip(bound!) < DEFAULT_SETTLE_MS;
    expect(withOthers()).toEqual(
      bounded
        ? { ms: windowForTrip(bound!), eager: false, why: "initial-sync", tripMs: bound }
        : { ms: DEFAULT_SETTLE_MS, eager: false, why: "default" },
    );
    // The claim and the result: two updates, each acked by the instance.
    await expect(a.store.ensure({ url: host.url(`/${room}/items`) })).resolves.toMatchObject({ status: "success" });
    await vi.waitFor(() => expect(tripOf(a)).toBeGreaterThanOrEqual(0));
    expect(tripOf(a)).toBeLessThan(1000);
    expect(withOthers()).toEqual({ ms: windowForTrip(tripOf(a)!), eager: false, why: "measured-trip", tripMs: tripOf(a) });
  });
});
