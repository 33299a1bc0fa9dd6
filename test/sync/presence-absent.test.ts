/**
 * Issue 10, "no tax when alone": a replica with no replica of another browser present claims with
 * no settle window. Presence removed without proof of death — y-protocols' 30 s silence check, or
 * our own lost connection — keeps the peer's claims on their lease (presence-takeover.test.ts), but
 * must not leave the peer counted present for the rest of the session: after such a removal the
 * server's own removal is ignored (or never reaches us), and a reconnect re-announces only the peers
 * still there. Ghosts would turn every later request's window from "alone" into a measured wait.
 */
import { afterEach, describe, expect, it } from "vitest";
import { applyAwarenessUpdate, Awareness, encodeAwarenessUpdate, removeAwarenessStates } from "y-protocols/awareness";
import * as Y from "yjs";
import { registerConnector } from "../../src/core/connectors.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { dropRemotePresence } from "../../src/sync/connection.ts";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

const fetch = (async () => new Response("{}", { status: 200, headers: { "content-type": "application/json" } })) as typeof globalThis.fetch;

/** Device A on a sync server, in sync for a minute; `server` stands for the server's awareness. */
function deviceA() {
  const doc = new Y.Doc();
  const awareness = new Awareness(doc);
  registerConnector(doc, {
    whenSynced: Promise.resolve(),
    crossDevice: true,
    tripMs: () => 20,
    syncedSince: () => Date.now() - 60_000,
    disconnectedSince: () => undefined,
  });
  const store = createSharedFetchStore({ doc, awareness, fetch, locks: null });
  const server = new Awareness(new Y.Doc());
  server.setLocalState(null);
  cleanups.push(() => (store.destroy(), awareness.destroy(), server.destroy()));
  return { awareness, store, server };
}

type Ending = "left" | "timeout, then left" | "our connection lost, then left";

/** A peer device's store announces itself to A through the server, then goes as `ending` says. */
function visit(a: ReturnType<typeof deviceA>, ending: Ending): boolean | undefined {
  const awareness = new Awareness(new Y.Doc());
  const peer = createSharedFetchStore({ doc: awareness.doc, awareness, fetch, locks: null });
  applyAwarenessUpdate(a.server, encodeAwarenessUpdate(awareness, [awareness.clientID]), "peer-socket");
  applyAwarenessUpdate(a.awareness, encodeAwarenessUpdate(a.server, [awareness.clientID]), "provider");
  const shown = a.store.inspect().replicas.find((r) => r.replicaId === peer.replicaId)?.present;
  if (ending === "timeout, then left") removeAwarenessStates(a.awareness, [awareness.clientID], "timeout"); // y-protocols' call
  if (ending === "our connection lost, then left") dropRemotePresence(a.awareness); // what connectPeers does on close
  // The peer leaves; the server tells everyone connected (A only when its connection is up).
  removeAwarenessStates(a.server, [awareness.clientID], null);
  if (ending !== "our connection lost, then left")
    applyAwarenessUpdate(a.awareness, encodeAwarenessUpdate(a.server, [awareness.clientID]), "provider");
  peer.destroy();
  awareness.destroy();
  return shown;
}

describe("presence removed without proof of death leaves no ghost (issue 10: no window when alone)", () => {
  for (const ending of ["left", "timeout, then left", "our connection lost, then left"] as const) {
    it(`20 peers visit, each ${ending}: none is counted present after, and A is alone again`, () => {
      const a = deviceA();
      expect(a.store.inspect().settle?.why).toBe("alone");
      const shown = Array.from({ length: 20 }, () => visit(a, ending));
      expect(shown.every((present) => present === true)).toBe(true); // each was counted while there
      expect(a.store.inspect().replicas.filter((r) => !r.me && r.present)).toEqual([]);
      expect(a.store.inspect().settle?.why).toBe("alone");
    });
  }

  it("a peer still there is counted again when the reconnected server re-announces it", () => {
    const a = deviceA();
    const awareness = new Awareness(new Y.Doc());
    const peer = createSharedFetchStore({ doc: awareness.doc, awareness, fetch, locks: null });
    cleanups.push(() => (peer.destroy(), awareness.destroy()));
    const announce = () => applyAwarenessUpdate(a.awareness, encodeAwarenessUpdate(awareness, [awareness.clientID]), "provider");
    announce();
    dropRemotePresence(a.awareness);
    expect(a.store.inspect().settle?.why).toBe("alone");
    awareness.setLocalStateField("sharedFetch", awareness.getLocalState()?.sharedFetch); // its renewal bumps the clock
    announce();
    expect(a.store.inspect().replicas.find((r) => r.replicaId === peer.replicaId)?.present).toBe(true);
    expect(a.store.inspect().settle?.why).not.toBe("alone");
  });
});
