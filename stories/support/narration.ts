/**
 * A scenario's timeline in words a newcomer reads ("A claimed /api/report (rev 1)", "B took over
 * from A after 812 ms: lease silence"), built from what the stores and the host report — each
 * store's events, its own liveness verdicts (`store.inspect()`), the host's calls — and a verdict
 * when the scenario ends. No React here: an entry is plain data, so another timeline (e.g. the
 * devtools' cross-replica one) can feed the same list.
 */
import type { Inspection, SharedFetchStoreWithExtras, StoreEvent } from "../../src/index.ts";
import type { Host, HostCall } from "../../sim/host.ts";

export type NarrationEntry = { at: number; text: string; replica?: string; key?: string };

export type NarrationState = { entries: readonly NarrationEntry[]; verdict: string | undefined; startedAt: number };

const REASONS: Record<string, string> = {
  "lease-silence": "lease silence",
  "lock-released": "its Web Lock was released",
  "presence-left": "its presence left",
  abandoned: "its page marked the claim abandoned",
  disowned: "the claim was forged under its id",
};

export class Narration {
  private state: NarrationState = { entries: [], verdict: undefined, startedAt: Date.now() };
  private readonly listeners = new Set<() => void>();
  /** Display names by replica id ("replica-a" → "A"). */
  readonly names = new Map<string, string>();

  add(entry: Omit<NarrationEntry, "at"> & { at?: number }): void {
    this.set({ ...this.state, entries: [...this.state.entries, { at: entry.at ?? Date.now(), ...entry }] });
  }

  /** The one-line verdict of the end state reached (a later end state, e.g. after a refetch, replaces it). */
  end(verdict: string): void {
    if (this.state.verdict !== verdict) this.set({ ...this.state, verdict });
  }

  nameOf(replicaId: string): string {
    return this.names.get(replicaId) ?? replicaId;
  }

  texts(): string[] {
    return this.state.entries.map((e) => e.text);
  }

  getSnapshot = (): NarrationState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  private set(next: NarrationState): void {
    this.state = next;
    for (const listener of [...this.listeners]) listener();
  }
}

/** "/api/report" from "GET https://host.example/api/report"; "POST /api/items" from a POST's. */
export function pathOf(label: string | undefined): string {
  if (!label) return "the request";
  const url = label.split(" ").at(-1) ?? label;
  // A write and a read of one URL are two keys: the method tells them apart where GET goes without saying.
  const method = /^(POST|PUT|PATCH|DELETE) /.exec(label)?.[0] ?? "";
  try {
    return method + new URL(url).pathname;
  } catch {
    return method + url;
  }
}

type Sighting = { claimant: string; lastSignAt: number; reason?: string };

/**
 * Narrates one store. Takeover reasons come from the store's own verdicts: the latest inspection
 * that showed the claimant's claim (its silence), and the replicas it saw depart.
 */
export function narrateStore(n: Narration, name: string, store: SharedFetchStoreWithExtras): () => void {
  n.names.set(store.replicaId, name);
  const labels = new Map<string, string>();
  const sightings = new Map<string, Sighting>();
  const waiting = new Set<string>();
  const look = (insp: Inspection) => {
    for (const row of insp.keys) {
      if (row.label) labels.set(row.key, pathOf(row.label));
      const c = row.claim;
      if (!c || c.mine || c.finished) continue;
      const s: Sighting = { claimant: c.replicaId, lastSignAt: insp.at - c.silentMs };
      if (c.reason) s.reason = c.reason;
      sightings.set(row.key, s);
      const seen = `${row.key} ${c.replicaId} ${c.rev}`;
      if (row.local && row.local.waiters + row.local.listeners > 0 && !waiting.has(seen) && !c.stale) {
        waiting.add(seen);
        // Its claim taken over mid-request, a replica does not wait: its request goes on (invariant 2).
        const own = row.local.attempt?.phase === "running" ? `; its own request (rev ${row.local.attempt.rev}) goes on` : " and waits";
        n.add({
          text: `${name} sees ${n.nameOf(c.replicaId)}'s claim on ${labels.get(row.key) ?? "it"}${own}`,
          replica: name,
          key: row.key,
        });
      }
    }
  };
  const offInspect = store.onInspect(() => look(store.inspect()));
  const offEvent = store.onEvent((e: StoreEvent) => {
    if (e.type === "swept") return;
    const what = labels.get(e.key) ?? ("label" in e ? pathOf(e.label) : "it");
    if ("label" in e) labels.set(e.key, pathOf(e.label));
    const say = (text: string) => n.add({ text, replica: name, key: e.key });
    switch (e.type) {
      case "claimed": {
        if (!e.takeoverOf) return say(`${name} claimed ${what} (rev ${e.rev})`);
        const insp = store.inspect();
        const departed = insp.replicas.find((r) => r.replicaId === e.takeoverOf)?.departed;
        const seen = sightings.get(e.key);
        const reason = departed ?? seen?.reason ?? "lease-silence";
        // Silence is the reason only for a lease; an event (lock, presence) is its own moment.
        const after =
          reason === "lease-silence" && seen && seen.claimant === e.takeoverOf
            ? ` after ${Math.round(Date.now() - seen.lastSignAt)} ms`
            : "";
        return say(`${name} took over ${what} from ${n.nameOf(e.takeoverOf)}${after}: ${REASONS[reason] ?? reason}`);
      }
      case "yielded":
        return say(`${name} yielded ${what} to ${n.nameOf(e.to)}`);
      case "settled":
        if (!e.written) return say(`${name}'s ${e.outcome} for ${what} came home second and was dropped`);
        return say(e.outcome === "result" ? `${name} recorded the result (rev ${e.rev})` : `${name} recorded an error (rev ${e.rev})`);
      case "aborted":
        return say(
          `${name} aborted its request: ${{ superseded: "superseded", "no-waiters": "nobody waits for it any more", refetched: "a refetch sent a newer one", destroyed: "its store was closed", hidden: "its page was hidden" }[e.reason]}`,
        );
      case "released":
        return say(`${name} released its claim (rev ${e.rev})`);
      default:
        return;
    }
  });
  look(store.inspect());
  return () => {
    offInspect();
    offEvent();
  };
}

/** Narrates what the host received and how each call ended. */
export function narrateHost(n: Narration, host: Host): () => void {
  return host.onCall((call: HostCall) => {
    const who = call.from ?? "a replica";
    const what = `${call.method} ${pathOf(call.url)}`;
    const idem = call.headers["idempotency-key"];
    if (call.state === "in-flight")
      return n.add({
        text: `host received ${what} from ${who}${idem ? ` (Idempotency-Key ${idem.slice(0, 8)}…)` : ""}`,
        replica: call.from,
      });
    if (call.state === "answered")
      return n.add({ text: `host answered ${who}${call.status === 200 ? "" : ` with HTTP ${call.status}`}`, replica: call.from });
    if (call.state === "aborted") return n.add({ text: `${who}'s request was aborted at the host`, replica: call.from });
    n.add({ text: `${who}'s request failed`, replica: call.from });
  });
}

/**
 * "2 host requests: 1 lost with A, 1 by B" — how each call ended, by sender. `lost`: the numbers of
 * the calls a sender had in flight when it crashed (`inFlightFrom` then): whatever the host did with
 * them after, an answer reached nobody.
 */
export function hostSummary(
  calls: readonly HostCall[],
  crashed: ReadonlySet<string> = new Set(),
  lost: ReadonlySet<number> = new Set(),
): string {
  const parts = new Map<string, number>();
  for (const c of calls) {
    const who = c.from ?? "?";
    const part =
      lost.has(c.n) || (c.state === "in-flight" && crashed.has(who))
        ? `lost with ${who}`
        : c.state === "in-flight"
          ? `in flight from ${who}`
          : c.state === "aborted"
            ? `aborted by ${who}`
            : c.status !== undefined && c.status >= 400
              ? `${c.status} to ${who}`
              : `by ${who}`;
    parts.set(part, (parts.get(part) ?? 0) + 1);
  }
  const list = [...parts].map(([part, count]) => `${count} ${part}`).join(", ");
  return `${calls.length} host request${calls.length === 1 ? "" : "s"}${list ? `: ${list}` : ""}`;
}

/** The numbers of the calls `who` has in flight now: at its crash, those `hostSummary` tells as lost with it. */
export function inFlightFrom(calls: readonly HostCall[], who: string): number[] {
  return calls.filter((c) => c.from === who && c.state === "in-flight").map((c) => c.n);
}
