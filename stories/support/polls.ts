/**
 * What a polling scenario counts and narrates, round by round: each replica's query runs (its
 * mount, then one per `refetchInterval` tick — what TanStack alone would send to the host), each
 * host request, and once every pane shows a new answer, one line: "interval 3: A fetched rev 4,
 * B and C took it". No React here: it listens to each replica's QueryCache (what its pane shows)
 * and to the host.
 */
import type { SharedRequest } from "../../src/index.ts";
import { shortOf, type Replica, type Replicas } from "./replicas.ts";

/** One answer every pane showed: the host call that made it, its revision and its writer's `at`. */
export type PollRound = { request: number; from: string; rev: number; at: number | undefined; takenBy: string[] };

export type PollState = {
  /** Query-function runs per replica (short name → runs), the mount included. */
  runs: Readonly<Record<string, number>>;
  rounds: readonly PollRound[];
};

const answerOf = (data: unknown): number | undefined => {
  const n = (data as { request?: unknown } | null | undefined)?.request;
  return typeof n === "number" ? n : undefined;
};

export class PollWatch {
  private state: PollState;
  private readonly shown = new Map<string, number | undefined>();
  private readonly listeners = new Set<() => void>();
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly world: Replicas,
    private readonly req: SharedRequest,
  ) {
    const runs: Record<string, number> = {};
    for (const r of world.replicas) runs[shortOf(r.name)] = 0;
    this.state = { runs, rounds: [] };
    for (const replica of world.replicas) this.offs.push(this.watch(replica));
  }

  getSnapshot = (): PollState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  destroy(): void {
    for (const off of this.offs.splice(0)) off();
    this.listeners.clear();
  }

  private watch(replica: Replica): () => void {
    const name = shortOf(replica.name);
    return replica.queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== "updated") return;
      if (event.action.type === "fetch") {
        this.set({ ...this.state, runs: { ...this.state.runs, [name]: (this.state.runs[name] ?? 0) + 1 } });
      } else if (event.action.type === "success") {
        this.shown.set(name, answerOf(event.query.state.data));
        this.checkRound();
      }
    });
  }

  /** A round ends when every replica's cache holds the host's latest answer. */
  private checkRound(): void {
    const calls = this.world.host.calls;
    const latest = calls.filter((c) => c.state === "answered").at(-1);
    if (!latest || latest.n <= (this.state.rounds.at(-1)?.request ?? 0)) return;
    const names = this.world.replicas.map((r) => shortOf(r.name));
    if (!names.every((n) => this.shown.get(n) === latest.n)) return;
    const info = this.world.replicas[0]!.store.resultInfo(this.req);
    const from = latest.from ?? "?";
    const round: PollRound = { request: latest.n, from, rev: info?.rev ?? 0, at: info?.at, takenBy: names.filter((n) => n !== from) };
    const index = this.state.rounds.length;
    const took = round.takenBy.length === 0 ? "" : `, ${round.takenBy.join(" and ")} took it`;
    this.world.narration.add({
      text: `${index === 0 ? "first fetch" : `interval ${index}`}: ${from} fetched rev ${round.rev}${took}`,
      replica: from,
    });
    this.set({ ...this.state, rounds: [...this.state.rounds, round] });
  }

  private set(next: PollState): void {
    this.state = next;
    for (const listener of [...this.listeners]) listener();
  }
}
