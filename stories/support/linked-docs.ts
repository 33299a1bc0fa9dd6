import * as Y from "yjs";

/** Origin of every update a link applies; a link never forwards an update that carries it. */
export const LINK_ORIGIN = "link";

export type LinkOptions = {
  /**
   * Delay before an update reaches the other doc. 0 (default) applies it synchronously, inside the
   * writer's transaction: the harshest case for observers (DESIGN.md, "Pitfalls").
   */
  latencyMs?: number;
};

export type DocLink = {
  /** The two docs this link joins. */
  readonly ends: readonly [Y.Doc, Y.Doc];
  /** True while updates flow (the link is not cut and not destroyed). */
  readonly connected: boolean;
  /** Stop forwarding updates (a partition). Updates made meanwhile are exchanged on `reconnect`. */
  cut(): void;
  /** Exchange everything each side missed, then forward updates again. */
  reconnect(): void;
  /** Cut for good and drop pending deliveries. */
  destroy(): void;
};

/**
 * Joins two docs in-page: each doc's `update` is applied to the other with origin "link", and
 * updates whose origin is "link" are not sent back (so two docs do not ping-pong).
 */
export function linkDocs(a: Y.Doc, b: Y.Doc, options: LinkOptions = {}): DocLink {
  const latencyMs = options.latencyMs ?? 0;
  let connected = false;
  let destroyed = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const deliver = (to: Y.Doc, update: Uint8Array) => {
    if (latencyMs <= 0) {
      Y.applyUpdate(to, update, LINK_ORIGIN);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (connected) Y.applyUpdate(to, update, LINK_ORIGIN);
    }, latencyMs);
    timers.add(timer);
  };

  const forwardTo = (to: Y.Doc) => (update: Uint8Array, origin: unknown) => {
    if (!connected || origin === LINK_ORIGIN) return;
    deliver(to, update);
  };
  const aToB = forwardTo(b);
  const bToA = forwardTo(a);

  const exchange = () => {
    // Each side sends what the other is missing, measured against the other's state vector.
    const forB = Y.encodeStateAsUpdate(a, Y.encodeStateVector(b));
    const forA = Y.encodeStateAsUpdate(b, Y.encodeStateVector(a));
    deliver(b, forB);
    deliver(a, forA);
  };

  const reconnect = () => {
    if (destroyed || connected) return;
    connected = true;
    a.on("update", aToB);
    b.on("update", bToA);
    exchange();
  };

  const cut = () => {
    if (!connected) return;
    connected = false;
    a.off("update", aToB);
    b.off("update", bToA);
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };

  reconnect();

  return {
    ends: [a, b],
    get connected() {
      return connected;
    },
    cut,
    reconnect,
    destroy() {
      cut();
      destroyed = true;
    },
  };
}

export type LinkedDocs = {
  docs: Y.Doc[];
  /**
   * One link per pair of docs (a full mesh: links never relay what they received, so a chain
   * would not carry an update past its first hop).
   */
  links: DocLink[];
  /** Cut every link and destroy every doc. */
  destroy(): void;
};

/** `count` fresh docs, every pair joined by `linkDocs`. */
export function createLinkedDocs(count = 2, options: LinkOptions = {}): LinkedDocs {
  const docs = Array.from({ length: count }, () => new Y.Doc());
  const links: DocLink[] = [];
  docs.forEach((a, i) => {
    for (const b of docs.slice(i + 1)) links.push(linkDocs(a, b, options));
  });
  return {
    docs,
    links,
    destroy() {
      for (const link of links) link.destroy();
      for (const doc of docs) doc.destroy();
    },
  };
}
