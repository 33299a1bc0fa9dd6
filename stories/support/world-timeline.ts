/**
 * A world's replica lines, told by the devtools timeline: each replica's store is read as its
 * panel reads it (`createDevtoolsModel`), and each entry phrased by `describeEntry` with the
 * world's pane names. Every replica's panel sees the same doc transitions, so one world timeline
 * takes from each the entries its own replica made (its claim, its takeover, its result, its
 * join, its abort: the store's own verdicts and events, which only it knows) and the rest (a
 * claim gone stale, a replica gone, what a closed replica did) from one narrator, the first
 * replica still running.
 */
import { createDevtoolsModel, describeEntry, type DevtoolsModel, type TimelineEntry } from "../../devtools/production.ts";
import type { Inspection, SharedFetchStoreWithExtras } from "../../src/index.ts";
import { pathOf, type Narration, type Place } from "./narration.ts";

/** The replica an entry is the act of, or undefined for what any panel tells alike. */
function actorOf(e: TimelineEntry): string | undefined {
  switch (e.type) {
    case "claimed":
      return e.replicaId;
    case "takeover":
    case "replaced":
      return e.to;
    case "result":
    case "error":
      return e.by;
    case "released":
    case "refetched":
    case "joined":
    case "yielded":
    case "refused":
      return e.replicaId;
    default:
      return undefined;
  }
}

/**
 * A panel speaks of its own store as "this store"; in a world's one timeline, every line comes from
 * some replica's panel, so the store that judged is named ("while B still judged it live").
 */
function inWorld(text: string, teller: string): string {
  return text.replace(
    "while this store still judged it live: the reason is not known here",
    `while ${teller} still judged it live: ${teller} cannot tell why`,
  );
}

export type WorldTimeline = {
  /**
   * Tells this store's lines from now on, as `name`. `model`: one made where the store was (a
   * real tab's iframe: the store's internals are its realm's), else one is made here.
   */
  add(name: string, store: SharedFetchStoreWithExtras, model?: DevtoolsModel): void;
  /** A crashed or closed replica tells nothing more: a crashed tab's panel is gone with it. */
  silence(replicaId: string): void;
  destroy(): void;
};

export function createWorldTimeline(n: Narration): WorldTimeline {
  /** Running replicas in the order they were added: the first one narrates what no one made. */
  const live = new Map<string, () => void>();
  const tell = (self: string, e: TimelineEntry, placeOf: (e: TimelineEntry) => Place | undefined) => {
    // A claim standing when this panel started was told when it was made.
    if (e.type === "claimed" && e.existing) return;
    const actor = actorOf(e);
    // A claim replaced with no reason known is the replaced claimant's story: only its store can
    // say it still counted its own claim live. What a replica no longer running did (a closed
    // tab's release) is told by the narrator.
    const own = e.type === "replaced" ? e.from : actor;
    const teller = own !== undefined && live.has(own) ? own : live.keys().next().value;
    if (teller !== self) return;
    const text = inWorld(
      describeEntry({ ...e, label: pathOf(e.label) }, (id) => n.nameOf(id)),
      n.nameOf(self),
    );
    const place = actor === self ? placeOf(e) : undefined;
    n.add({
      ...(place ? { place } : { at: e.at }),
      text,
      ...(actor ? { replica: n.nameOf(actor) } : {}),
      ...(e.key !== undefined ? { key: e.key } : {}),
    });
  };
  return {
    add(name, store, model = createDevtoolsModel(store, { minNotifyIntervalMs: 0 })) {
      n.names.set(store.replicaId, name);
      let seen = 0;
      const places = placesOf(n, store);
      const read = () => {
        const fresh = model.getSnapshot().timeline.filter((e) => e.seq > seen);
        if (fresh.length) seen = fresh[0]!.seq;
        for (const e of fresh.reverse()) tell(store.replicaId, e, places.take);
      };
      const offs = [model.subscribe(read), places.off, narrateOwnRequestGoesOn(n, name, store), narrateSecondHome(n, name, store)];
      read();
      live.set(store.replicaId, () => {
        for (const off of offs) off();
        model.destroy();
      });
    },
    silence(replicaId) {
      live.get(replicaId)?.();
      live.delete(replicaId);
    },
    destroy() {
      for (const stop of live.values()) stop();
      live.clear();
    },
  };
}

/**
 * Where the store's own claims and takeovers happened, for its panel's lines about them: the panel
 * tells them when it next looks at the doc, and meanwhile the host may have told the request a
 * claim sent (tabs send it before the claim's write) and even its answer. Taken from the store's
 * `claimed` event, emitted as it decides; the last one per key.
 */
function placesOf(n: Narration, store: SharedFetchStoreWithExtras) {
  const seen = new Map<string, { rev: number; place: Place }>();
  const off = store.onEvent((e) => {
    if (e.type === "claimed") seen.set(e.key, { rev: e.rev, place: n.mark() });
  });
  const take = (e: TimelineEntry): Place | undefined => {
    const at = (e.type === "claimed" || e.type === "takeover") && e.key !== undefined ? seen.get(e.key) : undefined;
    if (!at || at.rev !== (e as { rev: number }).rev) return undefined;
    seen.delete(e.key!);
    return at.place;
  };
  return { off, take };
}

/**
 * "A sees B's claim on /api/slow; its own request (rev 1) goes on": a replica whose claim was
 * taken over mid-request does not wait (invariant 2). No doc record says so, only the store's
 * inspector (its attempt still running under a foreign claim): a story-side line.
 */
function narrateOwnRequestGoesOn(n: Narration, name: string, store: SharedFetchStoreWithExtras): () => void {
  const told = new Set<string>();
  const look = (insp: Inspection) => {
    for (const row of insp.keys) {
      const c = row.claim;
      const attempt = row.local?.attempt;
      if (!c || c.mine || c.finished || c.stale || attempt?.phase !== "running") continue;
      const seen = `${row.key} ${c.replicaId} ${c.rev}`;
      if (told.has(seen)) continue;
      told.add(seen);
      n.add({
        text: `${name} sees ${n.nameOf(c.replicaId)}'s claim on ${pathOf(row.label)}; its own request (rev ${attempt.rev}) goes on`,
        replica: name,
        key: row.key,
      });
    }
  };
  return store.onInspect(() => look(store.inspect()));
}

/**
 * "A stopped its own request for POST /api/orders (rev 1), its answer unread: B's result for rev 1
 * was recorded first": after a takeover both copies run, the first one home is written and the other
 * is dropped (invariant 6). The doc shows only the written one, and the dropped copy releases no
 * claim (the claim is the other's): without this line a reader of "host answered A" never learns
 * what became of A's answer. A store-side line, from the store's own events.
 */
function narrateSecondHome(n: Narration, name: string, store: SharedFetchStoreWithExtras): () => void {
  return store.onEvent((e) => {
    const dropped = e.type === "aborted" && e.reason === "superseded";
    if (!dropped && !(e.type === "settled" && !e.written)) return;
    const row = store.inspect().keys.find((k) => k.key === e.key);
    const first = row?.result ?? row?.error;
    const what = `${first === row?.result ? "result" : "error"} for rev ${first?.rev ?? e.rev}`;
    const whose = first?.by !== undefined ? `${n.nameOf(first.by)}'s ${what}` : `a ${what}`;
    const text = dropped
      ? `${name} stopped its own request for ${pathOf(row?.label)} (rev ${e.rev}), its answer unread: ${whose} was recorded first (the first one home counts)`
      : `${name}'s answer for ${pathOf(row?.label)} (rev ${e.rev}) came home second and was not written: ${whose} was recorded first (the first one home counts)`;
    n.add({ text, replica: name, key: e.key });
  });
}
