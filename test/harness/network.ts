import * as Y from "yjs";

/**
 * N docs joined by a simulated network. Delivery is synchronous when `delayMs` is 0 (which also
 * reproduces "a write on one doc runs another doc's observers at once"), otherwise scheduled with
 * setTimeout so that fake timers drive it. Replicas can be isolated (partitioned) and healed.
 */
export class Network {
  readonly docs: Y.Doc[] = [];
  delayMs = 0;
  /** Updates sent while this is true are lost (and recovered only by a heal). */
  dropping = false;
  private readonly isolated = new Set<Y.Doc>();
  private readonly origin = Symbol("network");

  constructor(count: number) {
    for (let i = 0; i < count; i++) this.add();
  }

  add(doc = new Y.Doc()): Y.Doc {
    this.docs.push(doc);
    doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === this.origin) return;
      for (const other of this.docs) if (other !== doc) this.send(doc, other, update);
    });
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

  heal(doc?: Y.Doc): void {
    if (doc) this.isolated.delete(doc);
    else this.isolated.clear();
    for (const a of this.docs) for (const b of this.docs) if (a !== b) this.exchange(a, b);
  }

  /** Remove a doc from the network, e.g. a crashed tab: nothing more is sent or received. */
  remove(doc: Y.Doc): void {
    const i = this.docs.indexOf(doc);
    if (i >= 0) this.docs.splice(i, 1);
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
    if (this.delayMs > 0) setTimeout(deliver, this.delayMs);
    else deliver();
  }
}
