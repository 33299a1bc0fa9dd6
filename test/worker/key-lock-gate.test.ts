import { describe, expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { keyLockGate } from "../../src/worker/key-lock-gate.ts";

const KEY = "shared-fetch:key::k1";
const tick = () => new Promise((r) => setTimeout(r, 0));

/** The live worker holds KEY until `release` is called (or its tag crashes). */
function holdAsLive(locks: FakeLocks): () => void {
  let release = () => {};
  void locks.forTab("live").request(KEY, { mode: "exclusive" }, () => new Promise<void>((r) => (release = r)));
  return () => release();
}

describe("a standby's key lock gate", () => {
  it("queues a key lock the live worker holds in advance: the dead worker's release grants it, no request made at promotion", async () => {
    const locks = new FakeLocks();
    holdAsLive(locks);
    const standby = locks.forTab("standby");
    let requests = 0;
    const counted = { request: (...a: Parameters<typeof standby.request>) => (requests++, standby.request(...a)) };
    const gate = keyLockGate(counted, (name) => name === KEY);
    let ran = 0;
    const held = gate.locks.request(KEY, { mode: "exclusive" }, () => (ran++, "claimed"));
    await tick();
    expect(requests).toBe(1);
    expect(ran).toBe(0);
    gate.open();
    expect(requests).toBe(1);
    await tick();
    expect(ran).toBe(0);
    let granted = false;
    void gate.granted().then(() => (granted = true));
    await tick();
    expect(granted).toBe(false);
    locks.crash("live");
    await expect(held).resolves.toBe("claimed");
    expect(ran).toBe(1);
    expect(requests).toBe(1);
    expect(granted).toBe(true);
  });

  it("granted while the live worker lives (it let the key go), lets it go at once and never runs the store's callback before promotion", async () => {
    const locks = new FakeLocks();
    const release = holdAsLive(locks);
    let liveHolds = true;
    const gate = keyLockGate(locks.forTab("standby"), () => liveHolds);
    let ran = 0;
    const held = gate.locks.request(KEY, { mode: "exclusive" }, () => (ran++, "claimed"));
    await tick();
    liveHolds = false;
    release();
    for (let i = 0; i < 5; i++) await tick();
    expect(ran).toBe(0);
    expect(locks.holders()).toEqual([]);
    // The live worker takes the key again at once: the standby does not hold it.
    let again = false;
    await locks.forTab("live").request(KEY, { mode: "exclusive" }, () => void (again = true));
    expect(again).toBe(true);
    expect(gate.parked).toBe(1);
    gate.open();
    await expect(held).resolves.toBe("claimed");
    expect(ran).toBe(1);
  });

  it("holds back a key lock the live worker is not known to hold until promotion", async () => {
    const locks = new FakeLocks();
    const gate = keyLockGate(locks.forTab("standby"), () => false);
    let ran = 0;
    const held = gate.locks.request(KEY, { mode: "exclusive" }, () => (ran++, "claimed"));
    for (let i = 0; i < 5; i++) await tick();
    expect(ran).toBe(0);
    expect(locks.holders()).toEqual([]);
    gate.open();
    await expect(held).resolves.toBe("claimed");
  });

  it("arm queues a held-back request once the live worker holds its key; an abort while queued rejects it, before or after promotion", async () => {
    const locks = new FakeLocks();
    holdAsLive(locks);
    let liveHolds = false;
    const gate = keyLockGate(locks.forTab("standby"), () => liveHolds);
    const before = new AbortController();
    const after = new AbortController();
    const a = gate.locks.request(KEY, { mode: "exclusive", signal: before.signal }, () => "a");
    const b = gate.locks.request(KEY, { mode: "exclusive", signal: after.signal }, () => "b");
    liveHolds = true;
    gate.arm();
    before.abort();
    await expect(a).rejects.toMatchObject({ name: "AbortError" });
    gate.open();
    after.abort();
    await expect(b).rejects.toMatchObject({ name: "AbortError" });
    expect(gate.parked).toBe(0);
  });
});
