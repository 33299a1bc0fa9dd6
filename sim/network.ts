import * as Y from "yjs";

/** Decides whether an update a doc sends is lost on the way (see `Network.drop`). */
export type DropRule = (from: Y.Doc, update: Uint8Array) => boolean;

/**
 * N docs joined by a simulated network: the one network of the unit tests, the bench and the
 * Storybook scenarios. Delivery is synchronous when `delayMs` is 0 (which also reproduces "a write
 * on one doc runs another doc's observers at once"), otherwise scheduled with setTimeout so that
 * fake timers drive it. Replicas can be isolated (partitioned) and healed, or removed (crashed).
 */
export class Network {
  readonly docs: Y.Doc[] = [];
  delayMs = 0;
  /** Updates sent while this is true are lost (and recovered only by a heal). */
  dropping = false;
  /**
   * Loses the updates it matches, e.g. one replica's heartbeat writes. A doc that lost one sends
   * its next update as a full sync (state vectors), as a provider that noticed a gap would: Yjs
   * cannot apply an update whose predecessor from the same client is missing.
   */
  drop: DropRule | undefined;
  private readonly behind = new Set<Y.Doc>();
  private readonly isolated = new Set<Y.Doc>();
  private readonly origin = Symbol("network");
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly offs = new Map<Y.Doc, () => void>();

  constructor(count: number) {
    for (let i = 0; i < count; i++) this.add();
  }

  add(doc = new Y.Doc()): Y.Doc {
    this.docs.push(doc);
    const onUpdate = (update: Uint8Array, origin: unknown) => {
      if (origin === this.origin) return;
      if (this.drop?.(doc, update)) {
        this.behind.add(doc);
        return;
      }
      if (this.behind.delete(doc)) {
        for (const other of this.docs) if (other !== doc) this.exchange(doc, other);
        return;
      }
      for (const other of this.docs) if (other !== doc) this.send(doc, other, update);
    };
    doc.on("update", onUpdate);
    this.offs.set(doc, () => doc.off("update", onUpdate));
    // A newcomer catches up with whoever it can reach, as a provider's sync step 1/2 would.
    for (const other of this.docs) {
      if (other === doc) continue;
      this.exchange(other, doc);
      this.exchange(doc, other);
    }
    return doc;
  }

  isolate(doc: Y.Doc): void {
    this.isolated.add(doc);
  }

  /** True while `doc` is on the network and not isolated. */
  connected(doc: Y.Doc): boolean {
    return this.docs.includes(doc) && !this.isolated.has(doc);
  }

  heal(doc?: Y.Doc): void {
    if (doc) this.isolated.delete(doc);
    else this.isolated.clear();
    for (const a of this.docs) for (const b of this.docs) if (a !== b) this.exchange(a, b);
  }

  /** Remove a doc from the network, e.g. a crashed tab: nothing more is sent or received. */
  remove(doc: Y.Doc): void {
    const i = this.docs.indexOf(doc);
    if (i >= 0) this.docs.splice(i, 1);
    this.offs.get(doc)?.();
    this.offs.delete(doc);
  }

  /** Drop pending deliveries and stop listening to every doc (the docs themselves stay). */
  destroy(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const doc of [...this.docs]) this.remove(doc);
  }

  private reachable(a: Y.Doc, b: Y.Doc): boolean {
    return this.docs.includes(a) && this.docs.includes(b) && !this.isolated.has(a) && !this.isolated.has(b);
  }

  private exchange(from: Y.Doc, to: Y.Doc): void {
    if (!this.reachable(from, to)) return;
    Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)), this.origin);
  }

  private send(from: Y.Doc, to: Y.Doc, update: Uint8Array): void {
    if (!this.reachable(from, to) || this.dropping) return;
    const deliver = () => {
      if (this.reachable(from, to)) Y.applyUpdate(to, update, this.origin);
    };
    if (this.delayMs <= 0) return deliver();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      deliver();
    }, this.delayMs);
    this.timers.add(timer);
  }
}

/**
 * True when every record an update inserts belongs to `table` (records are `{ t: table, … }`
 * entries of per-replica lanes: src/core/lanes.ts). Lets a scenario lose one kind of write only.
 */
export function insertsOnly(update: Uint8Array, table: string): boolean {
  let records = 0;
  for (const struct of Y.decodeUpdate(update).structs) {
    if (!(struct instanceof Y.Item)) continue;
    for (const value of struct.content.getContent()) {
      if (value instanceof Y.AbstractType) return false;
      const t = (value as { t?: unknown } | null)?.t;
      if (t !== table) return false;
      records += 1;
    }
  }
  return records > 0;
}
