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

  it("retry given to sharedMutationFn runs inside the claim: every attempt carries the same Idempotency-Key (useMutation's own retry would send a new one)", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => (call.n < 3 ? { status: 503, body: "busy" } : { status: 201, body: { added: true } });
    const add = sharedMutationFn<string, unknown>(c.stores[0]!, post, { retry: 2, retryDelay: 0 });
    expect(await add("x")).toEqual({ added: true });
    expect(c.host.calls).toHaveLength(3);
    const keys = new Set(c.host.calls.map((call) => call.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toBeTruthy();
    // A bad retry is refused as bad input, before anything is sent.
    const bad = sharedMutationFn<string, unknown>(c.stores[0]!, post, { retry: "3" as never });
    await expect(bad("y")).rejects.toThrow(/retry must be/);
    expect(c.host.calls).toHaveLength(3);
  });
});
