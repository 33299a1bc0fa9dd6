import { vi } from "vitest";
import type * as Y from "yjs";
import { createSharedFetchStore, type CreateStoreOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { Host } from "./host.ts";
import { Network } from "./network.ts";

export const URL_A = "https://api.example.test/items";

export type Cluster = {
  net: Network;
  host: Host;
  stores: SharedFetchStoreWithExtras[];
  /** A new replica on a new doc joined to the network (e.g. a reload after a crash). */
  join(options?: Partial<CreateStoreOptions>): SharedFetchStoreWithExtras;
  /** A crash: the replica stops sending and receiving, without any orderly teardown. */
  crash(store: SharedFetchStoreWithExtras): void;
  docOf(store: SharedFetchStoreWithExtras): Y.Doc;
  destroy(): void;
};

export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
}

/** N replicas, each with its own doc and store, all asking one controllable host. */
export function cluster(count: number, options: Partial<CreateStoreOptions> = {}): Cluster {
  const net = new Network(0);
  const host = new Host();
  const docs = new Map<SharedFetchStoreWithExtras, Y.Doc>();
  const join = (extra: Partial<CreateStoreOptions> = {}) => {
    const doc = net.add();
    const store = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 20, ...options, ...extra });
    docs.set(store, doc);
    c.stores.push(store);
    return store;
  };
  const c: Cluster = {
    net,
    host,
    stores: [],
    join,
    crash: (store) => net.remove(docs.get(store)!),
    docOf: (store) => docs.get(store)!,
    destroy: () => {
      for (const s of c.stores) s.destroy();
    },
  };
  for (let i = 0; i < count; i++) join();
  return c;
}

/** Lets queued microtasks and due timers run (fake clock). */
export async function tick(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}
