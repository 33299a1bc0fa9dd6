/**
 * The live worker died (the host tab's renderer crashed): the standby of the next generation is
 * promoted by its release, and takes that generation's worker lock once its doc is ready, tens of
 * milliseconds later in chromium. A tab that opened in between found no worker lock held, turned
 * to the generation its storage named (the dead one, or none stored: 0) and started a fresh
 * worker of it: a second live replica in the browser (its own doc, database connection, socket)
 * for as long as that tab lived, its requests never shared with the others'. The standby's own
 * lock, held while its predecessor's is not, now says which generation lives. Real ports, docs and
 * stores; FakeLocks, whose grant of the standby's worker lock the test holds back.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { STANDBY_LOCK_PREFIX, WORKER_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/opens-during-takeover";

it("a tab that opens after the live worker died and before the promoted standby holds its worker lock is served by that standby", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const b = browser(host);
  const gen = (n: number) => `shared-fetch:${b.name}:${n}`;
  // The standby's worker lock is granted only once the test says so (a loaded renderer).
  let grant!: () => void;
  const granted = new Promise<void>((resolve) => (grant = resolve));
  const forTab = b.locks.forTab.bind(b.locks);
  b.locks.forTab = (tag) => {
    const locks = forTab(tag);
    if (tag !== gen(1)) return locks;
    return {
      ...locks,
      request: (name, options, callback) =>
        name === WORKER_LOCK_PREFIX + gen(1)
          ? granted.then(() => locks.request(name, options, callback))
          : locks.request(name, options, callback),
    };
  };
  const [t1, t2] = [b.tab(), b.tab()];
  for (const t of [t1, t2]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  const probe = b.locks.forTab("probe");
  const heldNames = async () => ((await probe.query()).held ?? []).map((l) => l.name ?? "");
  await until(() => b.workers.has(gen(1)));
  while (!(await heldNames()).includes(STANDBY_LOCK_PREFIX + gen(1))) await new Promise((r) => setTimeout(r, 5));

  b.kill(0);
  // The tabs that watched its lock were granted it (so they learnt of the death) and let it go.
  while ((await heldNames()).includes(WORKER_LOCK_PREFIX + gen(0))) await new Promise((r) => setTimeout(r, 5));
  expect(await heldNames()).not.toContain(WORKER_LOCK_PREFIX + gen(1));
  const t3 = b.tab();
  const asked = t3.ensure({ url: API });
  // t3 holds its lifetime lock, which it takes right before its hello: it chose its worker.
  const tabLocks = async () => (await heldNames()).filter((n) => n.startsWith("shared-fetch:tab:")).length;
  while ((await tabLocks()) < 3) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 50));
  grant();
  await expect(asked).resolves.toMatchObject({ status: "success" });
  expect(t3.mode).toBe("shared-worker");
  expect(b.workers.has(gen(0))).toBe(false);
  await until(() => t3.replicaId === b.workerStore(1).replicaId);
  await expect(t1.refetch({ url: API })).resolves.toMatchObject({ status: "success" });
  expect(t1.replicaId).toBe(t3.replicaId);
});
