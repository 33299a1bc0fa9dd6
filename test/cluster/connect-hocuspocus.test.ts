import { describe, expect, it, onTestFinished } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectionLostOrigin } from "../../src/index.ts";
import { connectHocuspocus, HocuspocusAuthError, type HocuspocusOptions } from "../../src/hocuspocus/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { nextEvent, until } from "../sync/wait.ts";
import { uniqueRoom, useCluster } from "./harness.ts";

const env = useCluster();

function open(room: string, opts: Partial<HocuspocusOptions> = {}) {
  const cluster = env.cluster();
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, {
    urls: [cluster.urls[0]!],
    room,
    token: cluster.token(room),
    WebSocketPolyfill: WebSocket,
    ...opts,
  });
  onTestFinished(() => (conn.destroy(), doc.destroy()));
  return { doc, conn, map: doc.getMap<unknown>("m") };
}
type Opened = ReturnType<typeof open>;
const presenceOf = (p: Opened, other: Opened): unknown => p.conn.awareness.getStates().get(other.doc.clientID)?.sharedFetch;
async function seeEachOther(a: Opened, b: Opened): Promise<void> {
  a.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "ra" });
  b.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "rb" });
  await Promise.all([
    until(a.conn.awareness, "change", () => presenceOf(a, b) !== undefined),
    until(b.conn.awareness, "change", () => presenceOf(b, a) !== undefined),
  ]);
}

describe("connectHocuspocus: bad input is refused at once, naming the bad value", () => {
  const doc = new Y.Doc();
  const base = { room: "r", token: "t", WebSocketPolyfill: WebSocket };
  it.each([
    [{ ...base }, /`url` or `urls` is required, got undefined/],
    [{ ...base, urls: [] }, /`url` or `urls` is required, got \[\]/],
    [{ ...base, url: "" }, /`url` must be a non-empty string, got ""/],
    [{ ...base, url: "http://127.0.0.1:1" }, /ws:\/\/ or wss:\/\/ URL, got "http:\/\/127.0.0.1:1"/],
    [{ ...base, url: "ws://a", urls: ["ws://b"] }, /`url` or `urls`, not both/],
    [{ ...base, url: "ws://a", room: "" }, /`room` must be a non-empty string, got ""/],
    [{ ...base, url: "ws://a", token: undefined }, /`token` must be a string or a function returning one, got undefined/],
    [{ ...base, url: "ws://a", WebSocketPolyfill: undefined }, /no global WebSocket here; pass `WebSocketPolyfill`/],
    [{ ...base, url: "ws://a", onRefused: "showSignIn" }, /`onRefused` must be a function, got "showSignIn"/],
  ])("%o", (opts, message) => {
    expect(() => connectHocuspocus(doc, opts as HocuspocusOptions)).toThrow(message);
  });

  it("a token of the wrong type is named by its type, never quoted (invariant 13)", () => {
    const secret = "eyJ-a-real-looking-jwt";
    const opts = { ...base, url: "ws://a", token: { jwt: secret } } as unknown as HocuspocusOptions;
    let message = "";
    try {
      connectHocuspocus(doc, opts);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/`token` must be a string or a function returning one, got a value of type object/);
    expect(message).not.toContain(secret);
  });
});

describe("connectHocuspocus against the cluster", () => {
  it("a client without a valid token can neither read nor write the room, and the refusal is final", async () => {
    const room = uniqueRoom("auth");
    const owner = open(room);
    await owner.conn.whenSynced;
    owner.map.set("secret", "only for token holders");
    for (const token of ["", "not-a-token", env.cluster().token(`${room}-other`)]) {
      const intruder = open(room, { token });
      intruder.map.set("planted", token);
      const error = await intruder.conn.whenSynced.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HocuspocusAuthError);
      expect(error).toMatchObject({ name: "HocuspocusAuthError", room, reason: "permission-denied" });
      expect(intruder.conn.error).toBe(error);
      expect(intruder.conn.websocket.shouldConnect).toBe(false); // stopped: no endless retry
      intruder.map.set("planted-later", token);
      expect(intruder.map.get("secret")).toBeUndefined();
    }
    // A reader that joins the instance the intruders wrote to gets the room's state: nothing planted.
    const reader = open(room);
    await reader.conn.whenSynced;
    expect(reader.map.toJSON()).toEqual({ secret: "only for token holders" });
    // Through the other instance too (it may answer "synced" before Redis brought it the room).
    const across = open(room, { urls: [env.cluster().urls[1]!] });
    await until(across.doc, "update", () => across.map.get("secret") !== undefined);
    expect(across.map.toJSON()).toEqual({ secret: "only for token holders" });
  });

  it("a token function that fails once (an auth backend's blip) is asked again at the next connection: not a final refusal", async () => {
    const room = uniqueRoom("tokenfn");
    let calls = 0;
    const token = async () => {
      if (++calls === 1) throw new Error("fetch /api/token: 503");
      return env.cluster().token(room);
    };
    const c = open(room, { token, reconnectDelayMs: 50 });
    await c.conn.whenSynced;
    expect(c.conn.error).toBeUndefined();
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it("a refusal at a reconnect (the secret rotated mid-session) reaches onRefused, though whenSynced resolved long ago", async () => {
    const cluster = env.cluster();
    const room = uniqueRoom("rotated");
    let valid = true;
    const refusals: HocuspocusAuthError[] = [];
    let heard!: () => void;
    const refused = new Promise<void>((resolve) => (heard = resolve));
    const c = open(room, {
      token: () => (valid ? cluster.token(room) : "revoked"),
      reconnectDelayMs: 50,
      onRefused: (error) => (refusals.push(error), heard()),
    });
    await c.conn.whenSynced;
    expect(refusals).toEqual([]);
    valid = false;
    // A lost connection: the provider reconnects by itself, asking the token function again.
    (c.conn.websocket.webSocket as unknown as WebSocket).terminate();
    await refused;
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(HocuspocusAuthError);
    expect(c.conn.error).toBe(refusals[0]);
    expect(c.conn.websocket.shouldConnect).toBe(false);
  });

  it("syncs through a cluster when the first URL is down: the next one is tried", async () => {
    const room = uniqueRoom("dead-first");
    const dead = `ws://127.0.0.1:${await freePort()}`;
    const a = open(room, { urls: [dead, env.cluster().urls[1]!] });
    await a.conn.whenSynced;
    expect(a.conn.url).toBe(env.cluster().urls[1]);
  });

  it("marks presence dropped by its own lost connection with connectionLostOrigin; the peer sees a real departure", async () => {
    const room = uniqueRoom("lost");
    const a = open(room);
    const b = open(room, { urls: [env.cluster().urls[1]!] });
    await seeEachOther(a, b);
    const lostLocally = nextEvent<[{ removed: number[] }, unknown]>(b.conn.awareness, "change", (c) => c.removed.includes(a.doc.clientID));
    const seenLeaving = nextEvent<[{ removed: number[] }, unknown]>(a.conn.awareness, "change", (c) => c.removed.includes(b.doc.clientID));
    b.conn.websocket.disconnect(); // a partition, seen from b
    expect((await lostLocally)[1]).toBe(connectionLostOrigin);
    expect((await seenLeaving)[1]).not.toBe(connectionLostOrigin);

    // Back: b re-announces itself at a higher clock, so a sees it now, not at the 15 s renewal.
    void b.conn.websocket.connect();
    await until(a.conn.awareness, "change", () => presenceOf(a, b) !== undefined);
    await until(b.conn.awareness, "change", () => presenceOf(b, a) !== undefined);
  });

  it("is visible again at once when the same doc reconnects after destroy (StrictMode remount)", async () => {
    const room = uniqueRoom("remount");
    const b = open(room);
    const doc = new Y.Doc();
    onTestFinished(() => doc.destroy());
    const cluster = env.cluster();
    const connect = () => connectHocuspocus(doc, { url: cluster.urls[1]!, room, token: cluster.token(room), WebSocketPolyfill: WebSocket });
    const presence = () => b.conn.awareness.getStates().get(doc.clientID)?.sharedFetch;
    const first = connect();
    first.awareness.setLocalStateField("sharedFetch", { replicaId: "r1" });
    await until(b.conn.awareness, "change", () => presence() !== undefined);
    const left = nextEvent<[{ removed: number[] }]>(b.conn.awareness, "change", (c) => c.removed.includes(doc.clientID));
    first.destroy();
    await left;
    const second = connect();
    onTestFinished(() => second.destroy());
    second.awareness.setLocalStateField("sharedFetch", { replicaId: "r2" });
    await until(b.conn.awareness, "change", () => presence() !== undefined);
    expect(presence()).toEqual({ replicaId: "r2" });
  });

  it("resolves whenSynced on destroy even before the server answered (and throws nothing later)", async () => {
    const a = open(uniqueRoom("early"));
    a.conn.destroy();
    await a.conn.whenSynced;
  });
});
