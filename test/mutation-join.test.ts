/**
 * sharedMutationFn (README, "Coming from TanStack Query": identical mutations in flight join):
 * each call is a new revision of its request, and a call identical to one still in flight joins
 * it, in this replica or another; calls that differ, or come after the first answered, are sent.
 */
import { describe, expect, it } from "vitest";
import { sharedMutationFn } from "../src/index.ts";
import { cluster, URL_A } from "./harness/replicas.ts";

const post = (name: string) => ({ url: URL_A, method: "POST" as const, body: JSON.stringify({ name }) });

describe("sharedMutationFn: identical mutations in flight join (README, Coming from TanStack Query)", () => {
  it("two identical calls at once, in one replica and in another, send one POST and both get its answer", async () => {
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = (call) => ({ status: 200, body: { added: JSON.parse(call.body!) as unknown }, delayMs: 20 });
    const addA = sharedMutationFn<string, unknown>(c.stores[0]!, post);
    const addB = sharedMutationFn<string, unknown>(c.stores[1]!, post);
    const results = await Promise.all([addA("x"), addA("x"), addB("x")]);
    expect(c.host.calls.map((call) => call.method)).toEqual(["POST"]);
    expect(results).toEqual([{ added: { name: "x" } }, { added: { name: "x" } }, { added: { name: "x" } }]);
  });

  it("calls that differ are each sent, and the same call after the first answered is sent again", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => ({ status: 200, body: { added: JSON.parse(call.body!) as unknown } });
    const add = sharedMutationFn<string, unknown>(c.stores[0]!, post);
    await Promise.all([add("x"), add("y")]);
    expect(c.host.calls.map((call) => call.body)).toEqual([JSON.stringify({ name: "x" }), JSON.stringify({ name: "y" })]);
    await add("x");
    expect(c.host.calls).toHaveLength(3);
    // A new revision each time: the repeated call carries a new Idempotency-Key.
    expect(c.host.calls[2]!.headers["idempotency-key"]).not.toBe(c.host.calls[0]!.headers["idempotency-key"]);
  });
});
