import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import type { Host } from "../../sim/host.ts";

/**
 * How a link between two docs carries updates: `auto` delivers each at once (in order), `held`
 * queues them until the test delivers them one by one (in any order: Yjs keeps an update whose
 * predecessors are missing pending until they arrive), `down` loses them until a reconnect, which
 * exchanges state vectors both ways as a provider's sync steps 1 and 2 do.
 */
export type LinkMode = "auto" | "held" | "down";

type Link = { mode: LinkMode; cleanSince: number | undefined };

/**
 * Docs joined pairwise by links the test controls, one link per pair. Unlike sim/Network, each pair
 * has its own queue in each direction, so a test can hold, reorder, deliver and lose what one
 * replica sends another. A replica passes on what it receives to its other peers, as a sync server
 * or a tab's BroadcastChannel would reach them: without it, a replica cut from one peer alone would
 * keep every later update of the others pending (Yjs cannot integrate an insert whose neighbour it
 * never received), a partition no provider makes. So once a link is clean (`cleanSince`), each
 * side's doc holds everything the other's does.
 */
export class Relay {
  private readonly docs = new Map<number, Y.Doc>();
  private readonly links = new Map<string, Link>();
  /** Held updates, per direction `from>to`, oldest first. */
  private readonly queues = new Map<string, Uint8Array[]>();
  private readonly offs = new Map<number, () => void>();
  /** Each delivery's origin names the replica it came from: it is not passed back there. */
  private readonly origins = new Map<number, { relayedFrom: number }>();
  /** What each direction `from>to` delivered lately, newest last (for `echo`). */
  private readonly delivered = new Map<string, Uint8Array[]>();

  /** Joins `doc` as replica `id`: linked to every doc already here, synced with each at once. */
  add(id: number, doc: Y.Doc): void {
    this.remove(id);
    this.docs.set(id, doc);
    const onUpdate = (update: Uint8Array, origin: unknown) => {
      const from = [...this.origins].find(([, o]) => o === origin)?.[0];
      for (const to of this.docs.keys()) if (to !== id && to !== from) this.send(id, to, update);
    };
    doc.on("update", onUpdate);
    this.offs.set(id, () => doc.off("update", onUpdate));
    for (const other of this.docs.keys()) if (other !== id) this.reconnect(id, other);
  }

  /** The replica leaves (a crash): nothing more is sent to it or from it, and what was held is lost. */
  remove(id: number): void {
    this.offs.get(id)?.();
    this.offs.delete(id);
    this.docs.delete(id);
    for (const key of [...this.links.keys()]) if (key.split("|").includes(String(id))) this.links.delete(key);
    for (const map of [this.queues, this.delivered])
      for (const key of [...map.keys()]) if (key.split(">").includes(String(id))) map.delete(key);
  }

  has(id: number): boolean {
    return this.docs.has(id);
  }

  mode(a: number, b: number): LinkMode | undefined {
    return this.links.get(pair(a, b))?.mode;
  }

  /**
   * Orders link changes and the test's own events (`stamp`), which fake timers may place in one
   * millisecond: a link healed right after a request was sent is clean since after it.
   */
  private clock = 0;

  stamp(): number {
    return ++this.clock;
  }

  /**
   * Since when (a `stamp`) every update between a and b has been delivered as it was written, both
   * ways; undefined while the link holds or loses updates.
   */
  cleanSince(a: number, b: number): number | undefined {
    return this.links.get(pair(a, b))?.cleanSince;
  }

  /** From now on updates between a and b wait in their queues. */
  hold(a: number, b: number): void {
    const link = this.links.get(pair(a, b));
    if (!link || link.mode !== "auto") return;
    link.mode = "held";
    link.cleanSince = undefined;
  }

  /** Delivers the `index`-th held update from `from` to `to` (0: the oldest; any other: out of order). */
  deliver(from: number, to: number, index: number): boolean {
    const queue = this.queues.get(`${from}>${to}`);
    if (!queue?.length || this.mode(from, to) !== "held") return false;
    const [update] = queue.splice(index % queue.length, 1);
    this.apply(from, to, update!);
    return true;
  }

  /** Delivers everything held between a and b, oldest first, and carries updates at once from now on. */
  release(a: number, b: number): void {
    const link = this.links.get(pair(a, b));
    if (!link || link.mode !== "held") return;
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const queue = this.queues.get(`${from}>${to}`) ?? [];
      this.queues.delete(`${from}>${to}`);
      for (const update of queue) this.apply(from, to, update);
    }
    link.mode = "auto";
    link.cleanSince = this.stamp();
  }

  /** The link drops: what is held is lost, and so is everything sent until `reconnect`. */
  cut(a: number, b: number): void {
    const link = this.links.get(pair(a, b));
    if (!link) return;
    link.mode = "down";
    link.cleanSince = undefined;
    this.queues.delete(`${a}>${b}`);
    this.queues.delete(`${b}>${a}`);
  }

  /** Syncs a and b by state vectors (whatever the link held or lost), then carries updates at once. */
  reconnect(a: number, b: number): void {
    const da = this.docs.get(a);
    const db = this.docs.get(b);
    if (!da || !db || a === b) return;
    this.queues.delete(`${a}>${b}`);
    this.queues.delete(`${b}>${a}`);
    this.links.set(pair(a, b), { mode: "auto", cleanSince: this.stamp() });
    this.apply(a, b, Y.encodeStateAsUpdate(da, Y.encodeStateVector(db)));
    this.apply(b, a, Y.encodeStateAsUpdate(db, Y.encodeStateVector(da)));
  }

  /**
   * Delivers again the `index`-th latest update `from` already delivered to `to` (0: the last), as a
   * tab joined to its peers by two providers (BroadcastChannel and a sync server) receives each
   * update twice, in either order. Not over a link that is down.
   */
  echo(from: number, to: number, index: number): boolean {
    const past = this.delivered.get(`${from}>${to}`);
    if (!past?.length || !this.mode(from, to) || this.mode(from, to) === "down") return false;
    this.apply(from, to, past[past.length - 1 - (index % past.length)]!);
    return true;
  }

  /** Every link up and in sync: held links released, lost ones reconnected. */
  healAll(): void {
    const ids = [...this.docs.keys()];
    for (const a of ids) for (const b of ids) if (a < b) this.reconnect(a, b);
  }

  destroy(): void {
    for (const id of [...this.docs.keys()]) this.remove(id);
  }

  private apply(from: number, to: number, update: Uint8Array): void {
    let origin = this.origins.get(from);
    if (!origin) this.origins.set(from, (origin = { relayedFrom: from }));
    Y.applyUpdate(this.docs.get(to)!, update, origin);
    const past = this.delivered.get(`${from}>${to}`) ?? [];
    if (past.push(update) > 4) past.shift();
    this.delivered.set(`${from}>${to}`, past);
  }

  private send(from: number, to: number, update: Uint8Array): void {
    const mode = this.mode(from, to);
    if (mode === "auto") this.apply(from, to, update);
    else if (mode === "held") {
      const key = `${from}>${to}`;
      const queue = this.queues.get(key) ?? [];
      queue.push(update);
      this.queues.set(key, queue);
    }
  }
}

const pair = (a: number, b: number): string => (a < b ? `${a}|${b}` : `${b}|${a}`);

/** A store per tag, each on a doc of its own (clientID = its index + 1) joined to `relay`, fetching from `host` as its tag. */
export function relayedStores(relay: Relay, host: Host, tags: string[], leaseMs: number): SharedFetchStoreWithExtras[] {
  return tags.map((tag, i) => relayedStore(relay, host, tag, i, leaseMs));
}

/** One store as replica `id` of `relay` (clientID = id + 1), e.g. a replica that loads the doc later. */
export function relayedStore(relay: Relay, host: Host, tag: string, id: number, leaseMs: number): SharedFetchStoreWithExtras {
  const doc = new Y.Doc();
  doc.clientID = id + 1;
  relay.add(id, doc);
  return createSharedFetchStore({ doc, replicaId: tag, fetch: host.fetchAs(tag), leaseMs, settleMs: 20, locks: null });
}
