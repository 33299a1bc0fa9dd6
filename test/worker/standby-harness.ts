/**
 * Set-up shared by the standby tests that run real browser replicas side by side under Node
 * (test/worker/standby-*.test.ts): a replica per worker generation, a tab's port to one, and
 * waits on the event loop, and the live worker holding a result beside a standby that starts while
 * it is busy. Each registers its teardown in the test's `cleanups`.
 */
import { expect, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import { parseWorkerMessage } from "../../src/worker/parse-worker-message.ts";
import { PROTOCOL, type WorkerMessage } from "../../src/worker/protocol.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { fakeStorage } from "../sync/boot-fakes.ts";
import { pageChannels } from "../sync/page-channels.ts";

export const poll = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
};
/** Lets every promise reaction queued by a delivered message run. */
export const drain = () => new Promise((r) => setImmediate(r));

export function replica(cleanups: (() => void)[], locks: FakeLocks, workerName: string, host: Host): BrowserReplica {
  const r = createBrowserReplica({
    locks: locks.forTab(workerName),
    lockName: workerName,
    fetch: host.fetchAs(workerName),
    store: { settleMs: 0 },
  });
  cleanups.push(() => r.destroy());
  return r;
}

/** A tab's port to `r`: what it posts, and the next worker message of a kind (batches read through). */
export function portTo(cleanups: (() => void)[], r: BrowserReplica) {
  const channel = new MessageChannel();
  r.accept(channel.port2 as unknown as MessagePort);
  const waiting: { t: string; resolve: (m: WorkerMessage) => void }[] = [];
  channel.port1.addEventListener("message", (event: MessageEvent) => {
    const msg = parseWorkerMessage(event.data);
    const all = msg?.t === "batch" ? (msg.messages.map(parseWorkerMessage).filter(Boolean) as WorkerMessage[]) : msg ? [msg] : [];
    for (const m of all) {
      const i = waiting.findIndex((w) => w.t === m.t);
      if (i >= 0) waiting.splice(i, 1)[0]!.resolve(m);
    }
  });
  channel.port1.start();
  cleanups.push(() => channel.port1.close());
  return {
    post: (m: unknown) => channel.port1.postMessage(m),
    next: (t: string) => new Promise<WorkerMessage>((resolve) => waiting.push({ t, resolve })),
  };
}

/**
 * Generation 0 records `api`'s result `mark` (and persists it) for a tab that holds its lock; then,
 * generation 0 busy (its channel messages wait), generation 1 starts to stand by. `otherwise`: what
 * the host answers for any other URL.
 */
export async function liveWorkerThenStandby(cleanups: (() => void)[], prefix: string, api: string, mark: string, otherwise = "other") {
  vi.stubGlobal("localStorage", fakeStorage());
  const channels = pageChannels();
  const host = new Host();
  host.auto = (call) => ({ status: 200, body: { v: call.url === api ? mark : otherwise } });
  const locks = new FakeLocks();
  const name = `${prefix}-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const config = { name, identity: "anonymous", browserId: "b1" };

  channels.tag("worker");
  const live = replica(cleanups, locks, `${name}:0`, host);
  const tab = portTo(cleanups, live);
  await new Promise<void>((granted) => void locks.forTab("tab").request("tab-lock", {}, () => new Promise(() => granted())));
  tab.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
  tab.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: api } });
  const ready = (await tab.next("ready")) as Extract<WorkerMessage, { t: "ready" }>;
  expect(await tab.next("settled")).toMatchObject({ snap: { status: "success", data: { v: mark } } });
  channels.tag(undefined);
  await vi.waitFor(async () => expect(await indexedDbText(name)).toContain(mark), { timeout: 3000, interval: 10 });

  channels.busy("worker");
  channels.tag("standby");
  const standby = replica(cleanups, locks, `${name}:1`, host);
  portTo(cleanups, standby).post({ t: "standby", v: PROTOCOL, config, watch: ready.lock });
  await poll(() => channels.opened("standby") >= 2); // its connectTabs' channel and inbox
  channels.tag(undefined);
  return { channels, host, locks, name, config, standby };
}
