import fc from "fast-check";

/** The replicas' lease and settle window in the chaos runs (ms), and how many replicas at most. */
export const LEASE = 300;
export const SETTLE = 20;
export const SLOTS = 4;

const slot = fc.nat({ max: SLOTS - 1 });
/** One command of test/chaos-replicas.test.ts, over `keys` keys (slots and indexes are taken modulo what exists). */
export const chaosCommand = (keys: number) => {
  const key = fc.nat({ max: keys - 1 });
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant("ensure" as const), r: slot, k: key }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("refetch" as const), r: slot, k: key }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("ensureFresh" as const), r: slot, k: key }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("refetchPast" as const), r: slot, k: key }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("show" as const), r: slot, k: key }) },
    {
      weight: 4,
      arbitrary: fc.record({ op: fc.constant("answer" as const), call: fc.nat(7), outcome: fc.constantFrom("ok", "500", "network") }),
    },
    { weight: 4, arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.constantFrom(1, 10, SETTLE, 100, LEASE, 3 * LEASE) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("hold" as const), a: slot, b: slot }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant("deliver" as const), a: slot, b: slot, index: fc.nat(3) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("release" as const), a: slot, b: slot }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("cut" as const), a: slot, b: slot }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("reconnect" as const), a: slot, b: slot }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("crash" as const), r: slot }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("restart" as const), r: slot }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("remount" as const), r: slot }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("echo" as const), a: slot, b: slot, index: fc.nat(3) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("invalidate" as const), r: slot, k: key }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("withdraw" as const), ask: fc.nat(7) }) },
  );
};

export type ChaosCommand = ReturnType<typeof chaosCommand> extends fc.Arbitrary<infer C> ? C : never;
