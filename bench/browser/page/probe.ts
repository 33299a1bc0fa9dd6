/**
 * What every contender page records, the same way for each, so the bench compares like with
 * like: epoch timestamps (timeOrigin + now, sub-ms) of the script start, each request to the API
 * path, store milestones and the first commit that put data into the DOM.
 */
export type BenchWindow = {
  /** script (module start), data (first commit with data), and contender milestones. */
  __marks: Record<string, number>;
  /** performance.timeOrigin: the navigation start, as an epoch. */
  __t0: number;
  /** Epoch time of every fetch() of the API path from this tab. */
  __fetches: number[];
  /** shared-fetch store events (claimed, dispatched, …), for the harness's dispatched(). */
  __events: { at: number; type: string; [field: string]: unknown }[];
  __history: { at: number; status: string; hasData: boolean; mine: boolean | null }[];
  __errors: string[];
  __ready?: boolean;
  /** Doc updates from other tabs this tab received on a channel before it showed data. */
  __docUpdates: number;
  /** Every message this tab received on any channel (a BroadcastChannel listener) before it showed data. */
  __channelMessages: number;
  /** Renders of the contender's view until it showed data (the render that showed it included). */
  __renders: number;
  /** Every lock granted to this tab, by kind (a crash's takeover waits on the dead tab's locks). */
  __lockGrants: { kind: string; at: number }[];
};

export const win = window as unknown as BenchWindow;
export const now = (): number => performance.timeOrigin + performance.now();

win.__marks = { script: now() };
win.__t0 = performance.timeOrigin;
win.__fetches = [];
win.__events = [];
win.__history = [];
win.__errors = [];
win.__docUpdates = 0;
win.__channelMessages = 0;
win.__renders = 0;
win.__lockGrants = [];
window.addEventListener("error", (e) => win.__errors.push(String(e.error ?? e.message)));
window.addEventListener("unhandledrejection", (e) => win.__errors.push(`unhandled rejection: ${String(e.reason)}`));

export const params = new URLSearchParams(location.search);
/** Absolute URL of the shared request. */
export const api = new URL(params.get("api") ?? "/api/missing", location.href).href;
/** connectTabs name / lock and channel name: one per sample, so samples never mix. */
export const appName = params.get("name") ?? "bench";
export const interval = params.get("interval") ? Number(params.get("interval")) : undefined;
/** Every contender's staleTime when the harness sets one (a return visit that finds the recorded result stale). */
export const staleMs = params.get("stale") ? Number(params.get("stale")) : undefined;

/** One more render of the view, counted until it showed data. */
export function countRender(): void {
  if (win.__marks.data === undefined) win.__renders++;
}

/**
 * Marks the harness waits on: the page logs `bench:<name>` once, so the harness hears of it
 * through the console events it receives anyway, without evaluating Playwright's injected script
 * in the page or polling it every frame while the boot being measured runs.
 */
const SIGNALS = new Set(["ready", "data"]);

/** Sets a mark once (the first time wins). */
export function mark(name: string, at = now()): void {
  if (win.__marks[name] !== undefined) return;
  win.__marks[name] = at;
  if (SIGNALS.has(name)) console.debug(`bench:${name}`);
}

// Counted where every contender's request leaves the page: whoever calls fetch for the API path.
const originalFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (url.startsWith(api)) {
    const at = now();
    win.__fetches.push(at);
    mark("fetch", at);
    const response = originalFetch(input, init);
    // The response's headers are in: what follows (reading, recording, rendering) is the page's.
    void response.then(
      () => mark("responded"),
      () => {},
    );
    return response;
  }
  return originalFetch(input, init);
};

// Where a tab's boot waits, seen from outside any library: IndexedDB opening, the first message
// another tab sent on a channel, and lock queries (how a tab learns whether it is alone).
const idbOpen = IDBFactory.prototype.open;
IDBFactory.prototype.open = function (this: IDBFactory, name: string, version?: number) {
  mark("idbOpen");
  const request = version === undefined ? idbOpen.call(this, name) : idbOpen.call(this, name, version);
  request.addEventListener("success", () => mark("idbOpened"));
  return request;
};
const addListener = BroadcastChannel.prototype.addEventListener;
BroadcastChannel.prototype.addEventListener = function (this: BroadcastChannel, type: string, listener: unknown, options?: unknown) {
  if (type === "message")
    addListener.call(this, "message", (event: Event) => {
      mark("firstChannelMessage");
      // A doc update from another tab (y-protocols sync frame "update": bytes 0, 2), until this tab shows data.
      const data = (event as MessageEvent).data as unknown;
      if (win.__marks.data !== undefined) return;
      win.__channelMessages++;
      if (data instanceof Uint8Array && data[0] === 0 && data[1] === 2) win.__docUpdates++;
    });
  return addListener.call(this, type, listener as EventListener, options as AddEventListenerOptions);
} as typeof BroadcastChannel.prototype.addEventListener;
const query = LockManager.prototype.query;
LockManager.prototype.query = function (this: LockManager) {
  mark("locksQuery");
  return query.call(this).then((state) => {
    mark("locksQueried");
    return state;
  });
};
// Lock requests and grants by kind (the first of each): the gates between a tab's store and its
// claim (its replica lock, the key's lock, the browser id's agreement) and the leader page's lock.
const lockKind = (name: string): string =>
  name.startsWith("shared-fetch:replica:")
    ? "replicaLock"
    : name.startsWith("shared-fetch:key:")
      ? "keyLock"
      : name.startsWith("shared-fetch:browser-id")
        ? "idLock"
        : name.startsWith("lock-leader:")
          ? "leaderLock"
          : "otherLock";
const request = LockManager.prototype.request as (this: LockManager, name: string, ...rest: unknown[]) => Promise<unknown>;
LockManager.prototype.request = function (this: LockManager, name: string, ...rest: unknown[]) {
  const kind = lockKind(name);
  mark(`${kind}Asked`);
  const at = rest.length - 1;
  const callback = rest[at] as (lock: unknown) => unknown;
  rest[at] = (lock: unknown) => {
    mark(`${kind}Granted`);
    if (lock !== null) win.__lockGrants.push({ kind, at: now() });
    return callback(lock);
  };
  return request.call(this, name, ...rest);
} as typeof LockManager.prototype.request;
