/**
 * A few random schedules of test/random-schedules-reconnect.test.ts through the real thing: every
 * replica's connectPeers to a y-websocket server on 127.0.0.1, each device behind its own TCP gate
 * (down: sockets closed and refused; hang: connects never answered), real time. Two tabs of one
 * browser (one lock manager) and a second device ask, refetch and invalidate while links drop and
 * return, pages freeze and show again, and a tab is destroyed while it waits. Checked: the tabs
 * never have two requests of a key in flight; with every link up, every ask of a live replica
 * settles, nothing is pending, no key lock is held, and both devices show one outcome per key.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { connectPeers, createSharedFetchStore, type SharedFetchStoreWithExtras, type Snapshot } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { linkGate, type LinkGate } from "./link-gate.ts";
import { until } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";
import { rng } from "../harness/rng.ts";

const KEYS = [0, 1].map((i) => ({ url: `https://api.example.test/items/${i}` }));
const LEASE = 400;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(() => server.close());

type Replica = {
  tag: string;
  device: "d1" | "d2";
  store: SharedFetchStoreWithExtras;
  peers: ReturnType<typeof connectPeers>;
  doc: Y.Doc;
  page: EventTarget;
  frozen: boolean;
};

/** A store on its own page (page-lifecycle.ts reads `window` and `document` when it is made). */
function onPage<T>(page: EventTarget, make: () => T): T {
  const g = globalThis as { window?: unknown; document?: unknown };
  g.window = g.document = page;
  try {
    return make();
  } finally {
    delete g.window;
    delete g.document;
  }
}

async function schedule(seed: number): Promise<void> {
  const random = rng(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  const room = `random-${seed}-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  const locks = new FakeLocks();
  const gates: Record<Replica["device"], LinkGate> = { d1: await linkGate(server.url), d2: await linkGate(server.url) };
  const modes: Record<Replica["device"], "up" | "down" | "hang"> = { d1: "up", d2: "up" };
  const live = new Set<Replica>();
  const all: Replica[] = [];
  const log: string[] = [];
  let n = 0;
  const join = (device: Replica["device"]) => {
    const tag = `${device === "d1" ? "t" : "p"}${++n}`;
    const doc = new Y.Doc();
    const peers = connectPeers(doc, { url: gates[device].url, room, WebSocketPolyfill: WebSocket });
    const page = new EventTarget();
    const store = onPage(page, () =>
      createSharedFetchStore({
        doc,
        replicaId: tag,
        fetch: host.fetchAs(tag),
        leaseMs: LEASE,
        locks: device === "d1" ? locks.forTab(tag) : new FakeLocks().forTab(tag),
        browserId: device === "d1" ? "browser-1" : "browser-2",
      }),
    );
    KEYS.forEach((k) => store.subscribe(k, () => {}));
    const r: Replica = { tag, device, store, peers, doc, page, frozen: false };
    all.push(r);
    live.add(r);
  };
  join("d1");
  join("d1");
  join("d1");
  join("d2");
  const asks: { promise: Promise<Snapshot>; controller: AbortController; tag: string; settled: boolean; rejected: boolean }[] = [];
  const ask = (r: Replica, what: string, run: (signal: AbortSignal) => Promise<Snapshot>) => {
    const controller = new AbortController();
    const a = { promise: run(controller.signal), controller, tag: r.tag, settled: false, rejected: false };
    a.promise.then(
      () => (a.settled = true),
      () => ((a.settled = true), (a.rejected = true)),
    );
    asks.push(a);
    log.push(`${r.tag} ${what}`);
  };
  const gone = new Set<string>();
  const context = () => `seed ${seed}\n${log.join("\n")}`;
  const check = () => {
    for (const { url } of KEYS) {
      const running = host.calls.filter((c) => c.state === "in-flight" && c.url === url && c.from?.startsWith("t") && !gone.has(c.from));
      expect(running.length, `${context()}\ntwo requests of ${url} in flight in one browser`).toBeLessThanOrEqual(1);
    }
  };
  const setLink = (device: Replica["device"], mode: "up" | "down" | "hang") => {
    modes[device] = mode;
    log.push(`${device} link ${mode}`);
    gates[device][mode]();
  };
  const freeze = (r: Replica, frozen: boolean) => {
    r.frozen = frozen;
    log.push(`${r.tag} ${frozen ? "frozen" : "shown"}`);
    r.page.dispatchEvent(frozen ? new Event("pagehide") : Object.assign(new Event("pageshow"), { persisted: true }));
  };
  try {
    await Promise.all(all.map((r) => r.peers.whenSynced));
    for (let step = 0; step < 14; step++) {
      const r = pick([...live]);
      const req = pick(KEYS);
      const x = random();
      if (x < 0.15) ask(r, `ensure ${req.url.slice(-1)}`, (signal) => r.store.ensure(req, { signal }));
      else if (x < 0.3) {
        const skipInFlight = random() < 0.5;
        ask(r, `refetch ${req.url.slice(-1)}${skipInFlight ? " skipInFlight" : ""}`, (signal) =>
          r.store.refetch(req, { signal, skipInFlight }),
        );
      } else if (x < 0.38) {
        log.push(`${r.tag} invalidate ${req.url.slice(-1)}`);
        invalidateKey(r.store, r.store.keyOf(req));
        for (const o of [r, pick([...live])])
          ask(o, `ensure maxAge ${req.url.slice(-1)}`, (signal) => o.store.ensure(req, { signal, maxAgeMs: LEASE }));
      } else if (x < 0.55 && host.open.length) {
        const call = pick(host.open);
        log.push(`answer ${call.from} ${call.url.slice(-1)}`);
        call.respond(200, { step, from: call.from });
      } else if (x < 0.75) {
        const device = pick(["d1", "d2"] as const);
        setLink(device, modes[device] === "up" ? (random() < 0.7 ? "down" : "hang") : "up");
      } else if (x < 0.85 && r.device === "d1") freeze(r, !r.frozen);
      else if (x < 0.9 && r.device === "d1" && [...live].filter((t) => t.device === "d1").length > 2) {
        log.push(`${r.tag} destroy (${r.store.inspect().lifecycle})`);
        r.store.destroy();
        r.peers.destroy();
        gone.add(r.tag);
        live.delete(r);
      }
      await pause(Math.floor(random() * 150));
      check();
    }
    log.push("end");
    for (const device of ["d1", "d2"] as const) {
      if (modes[device] === "hang") setLink(device, "down");
      setLink(device, "up");
    }
    for (const r of live) if (r.frozen) freeze(r, false);
    // Reconnect now rather than after y-websocket's back-off.
    for (const r of live) if (!r.peers.provider.wsconnected && !r.peers.provider.wsconnecting) r.peers.provider.connect();
    host.auto = () => ({ status: 200, body: { final: true } });
    for (const call of host.open) if (!gone.has(call.from!)) call.respond(200, { final: true });
    await Promise.all([...live].map((r) => until(r.peers.provider, "sync", () => r.peers.provider.synced)));
    const mine = asks.filter((a) => !gone.has(a.tag));
    await vi.waitFor(
      () => {
        check();
        expect(mine.filter((a) => !a.settled).length, `${context()}\nan ask never settled`).toBe(0);
      },
      { timeout: 2000 + 3 * LEASE + 1000, interval: 20 },
    );
    expect(mine.filter((a) => a.rejected && !a.controller.signal.aborted).length, `${context()}\nrejected unasked`).toBe(0);
    await vi.waitFor(
      () => {
        for (const k of KEYS) {
          const shown = [...live].map((r) => {
            const s = r.store.snapshot(k);
            return `${s.status} ${JSON.stringify(s.data)}${s.error ? ` ${s.error.message}` : ""}`;
          });
          expect(
            shown.filter((s) => s.startsWith("pending")),
            `${context()}\nstill pending`,
          ).toEqual([]);
          expect(new Set(shown).size, `${context()}\ntwo outcomes shown for ${k.url}:\n${shown.join("\n")}`).toBe(1);
        }
      },
      { timeout: 3 * LEASE, interval: 20 },
    );
    await vi.waitFor(async () => {
      const { held = [] } = await locks.forTab("probe").query();
      expect(
        held.map(({ name = "" }) => name).filter((name) => name.startsWith("shared-fetch:key:")),
        `${context()}\na key lock held`,
      ).toEqual([]);
    });
  } finally {
    for (const r of all) {
      r.store.destroy();
      r.peers.destroy();
      r.doc.destroy();
    }
    gates.d1.close();
    gates.d2.close();
  }
}

const SEEDS = Number(process.env.SCHEDULE_SEEDS ?? 10);
const FROM = Number(process.env.SCHEDULE_FROM ?? 1);
for (let seed = FROM; seed < FROM + SEEDS; seed++)
  it(`random schedule ${seed} through a real sync server, links dropping and returning`, () => schedule(seed), 20_000);
