/**
 * A scenario's timeline in words a newcomer reads ("A claimed /api/report (rev 1)", "B took over
 * /api/report from A after 0.8 s: lease silence"): the replicas' lines come from the devtools
 * timeline (world-timeline.ts), the host's from its calls (narrateHost: what the devtools cannot
 * know), the story's own (a crash, a reload), and a verdict when the scenario ends. No React here.
 */
import type { Host, HostCall } from "../../sim/host.ts";

export type NarrationEntry = { at: number; text: string; replica?: string; key?: string };

export type NarrationState = { entries: readonly NarrationEntry[]; verdict: string | undefined; startedAt: number };

/** A place in the timeline, taken when something happened and told later (see `mark`). */
export type Place = { at: number; seq: number };

export class Narration {
  private state: NarrationState = { entries: [], verdict: undefined, startedAt: Date.now() };
  /** Each entry's place in the order things happened (parallel to state.entries). */
  private seqs: number[] = [];
  private seq = 0;
  private readonly listeners = new Set<() => void>();
  /** Display names by replica id ("replica-a" → "A"). */
  readonly names = new Map<string, string>();

  /**
   * The place of what happens now, for a line told later: a panel tells a claim once it next looks
   * at the doc, after the host already told the request that claim sent (tabs send it before the
   * claim's write). Told with `place`, the line goes before every line placed after it.
   */
  mark(): Place {
    return { at: Date.now(), seq: ++this.seq };
  }

  add({ place = this.mark(), ...entry }: Omit<NarrationEntry, "at"> & { at?: number; place?: Place }): void {
    let i = this.seqs.length;
    while (i > 0 && this.seqs[i - 1]! > place.seq) i--;
    this.seqs.splice(i, 0, place.seq);
    const entries = [...this.state.entries];
    entries.splice(i, 0, { at: place.at, ...entry });
    this.set({ ...this.state, entries });
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

/**
 * "/api/report" from "GET https://host.example/api/report"; "POST /api/items" from a POST's; a key
 * named with its short hash, as the devtools name keys that share a label, keeps it after the path
 * ("POST /api/items · 3fa9c2d1").
 */
export function pathOf(label: string | undefined): string {
  if (!label) return "the request";
  const [name = label, twin] = label.split(" · ");
  const url = name.split(" ").at(-1) ?? name;
  // A write and a read of one URL are two keys: the method tells them apart where GET goes without saying.
  const method = /^(POST|PUT|PATCH|DELETE) /.exec(name)?.[0] ?? "";
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not a URL (a key no record names, "key 3fa9c2d1e0b4…"): shown as it is.
  }
  return `${method}${path}${twin ? ` · ${twin}` : ""}`;
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
