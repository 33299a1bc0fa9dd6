/**
 * The Web Locks leader contender: the best existing design for one request across the tabs of a
 * browser. The tab holding the `leader` lock fetches and broadcasts each result on a
 * BroadcastChannel; the others ask it and wait. The lock is held for the tab's whole life, so its
 * release means the leader died (never "done"), and the next tab queued on it becomes leader and
 * fetches what is still outstanding at once.
 *
 * Messages: `ask` (a tab wants a URL), `result` / `error` (the leader's outcome for a URL, to all),
 * `leader` (a new leader is up: re-ask what you still wait for).
 */

type Message =
  { t: "ask"; url: string } | { t: "result"; url: string; data: unknown } | { t: "error"; url: string; message: string } | { t: "leader" };

type Waiter = { resolve: (data: unknown) => void; reject: (error: Error) => void };

export type LockLeaderOptions = {
  /** Names the lock and the channel: one per app (and trust boundary). */
  name: string;
  /** How long the leader answers an ask from its last result instead of fetching again. */
  reuseMs?: number;
  fetch?: typeof fetch;
  /** Called when this tab becomes leader (for instrumentation). */
  onLeader?: () => void;
};

export type LockLeader = {
  /** Resolves with the URL's JSON, fetched by whichever tab leads. */
  get(url: string): Promise<unknown>;
  /** "leader" or "follower" once the first lock request decided. */
  readonly role: Promise<"leader" | "follower">;
  destroy(): void;
};

export function createLockLeader(options: LockLeaderOptions): LockLeader {
  if (typeof options?.name !== "string" || options.name === "") {
    throw new TypeError(`createLockLeader: \`name\` must be a non-empty string, got ${JSON.stringify(options?.name)}`);
  }
  if (typeof navigator === "undefined" || !navigator.locks || typeof BroadcastChannel !== "function") {
    throw new Error("createLockLeader: needs navigator.locks and BroadcastChannel (a browser tab)");
  }
  const reuseMs = options.reuseMs ?? 60_000;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const lockName = `lock-leader:${options.name}`;
  // The channel listens before the lock is asked for: an ask posted right after we win is heard.
  const channel = new BroadcastChannel(`lock-leader:${options.name}`);
  const waiters = new Map<string, Set<Waiter>>();
  const inflight = new Map<string, Promise<void>>();
  const results = new Map<string, { data: unknown; at: number }>();
  const stop = new AbortController();
  let leading = false;

  const post = (message: Message): void => {
    if (!stop.signal.aborted) channel.postMessage(message);
  };

  const settle = (url: string, outcome: { data: unknown } | { error: Error }): void => {
    const set = waiters.get(url);
    if (!set) return;
    waiters.delete(url);
    for (const w of set) {
      if ("error" in outcome) w.reject(outcome.error);
      else w.resolve(outcome.data);
    }
  };

  /** As leader: one fetch per URL at a time; its outcome goes to every tab, this one included. */
  const lead = (url: string): Promise<void> => {
    const cached = results.get(url);
    if (cached && Date.now() - cached.at < reuseMs) {
      post({ t: "result", url, data: cached.data });
      settle(url, { data: cached.data });
      return Promise.resolve();
    }
    const running = inflight.get(url);
    if (running) return running;
    const job = (async () => {
      try {
        const response = await doFetch(url, { cache: "no-store", signal: stop.signal });
        if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
        const data: unknown = await response.json();
        results.set(url, { data, at: Date.now() });
        post({ t: "result", url, data });
        settle(url, { data });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        post({ t: "error", url, message });
        settle(url, { error: new Error(message) });
      } finally {
        inflight.delete(url);
      }
    })();
    inflight.set(url, job);
    return job;
  };

  const becomeLeader = (): Promise<void> => {
    leading = true;
    options.onLeader?.();
    post({ t: "leader" });
    // What this tab was waiting for as a follower is fetched now: the old leader is gone.
    for (const url of waiters.keys()) void lead(url);
    return new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve()));
  };

  channel.addEventListener("message", (event: MessageEvent<Message>) => {
    const m = event.data;
    if (typeof m !== "object" || m === null) return;
    if (m.t === "ask" && leading && typeof m.url === "string") void lead(m.url);
    else if (m.t === "result" && typeof m.url === "string") settle(m.url, { data: m.data });
    else if (m.t === "error" && typeof m.url === "string") settle(m.url, { error: new Error(String(m.message)) });
    else if (m.t === "leader" && !leading) for (const url of waiters.keys()) post({ t: "ask", url });
  });

  const role = new Promise<"leader" | "follower">((resolve) => {
    const queue = () =>
      navigator.locks
        .request(lockName, { signal: stop.signal }, () => becomeLeader())
        .catch(() => {
          // aborted by destroy()
        });
    navigator.locks
      .request(lockName, { ifAvailable: true }, (lock) => {
        if (lock === null) {
          resolve("follower");
          void queue();
          return undefined;
        }
        resolve("leader");
        return becomeLeader();
      })
      .catch(() => {});
  });

  return {
    role,
    async get(url: string): Promise<unknown> {
      if (stop.signal.aborted) throw new Error("createLockLeader: destroyed");
      const result = new Promise<unknown>((resolve, reject) => {
        let set = waiters.get(url);
        if (!set) waiters.set(url, (set = new Set()));
        set.add({ resolve, reject });
      });
      if ((await role) === "leader" || leading) void lead(url);
      else post({ t: "ask", url });
      return result;
    },
    destroy() {
      stop.abort();
      channel.close();
      for (const url of [...waiters.keys()]) settle(url, { error: new Error("createLockLeader: destroyed") });
    },
  };
}
