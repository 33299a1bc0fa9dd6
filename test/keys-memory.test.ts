/**
 * "100 000 distinct keys asked once each": a key stays in memory for as long as the doc holds its
 * records (retention: a day), in the records, the lanes' index and retention's clocks. Built by
 * noble's bytesToHex (64 concatenations, where the runtime's Uint8Array has no toHex: Node, older
 * browsers), each 64-character key was a rope of string nodes weighing about 0.9 KB instead of
 * under 0.1 KB: a page asking many keys carried roughly half a megabyte more per thousand of them.
 */
import v8 from "node:v8";
import vm from "node:vm";
import fc from "fast-check";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { fetchKey, hashKey } from "../src/core/key.ts";
import { normalizeRequest } from "../src/core/request.ts";

describe("request keys are flat strings (a day of keys in memory weighs what their text does)", () => {
  it("the key is SHA-256 in lower-case hex, as before", () => {
    fc.assert(fc.property(fc.string(), (text) => hashKey(text) === bytesToHex(sha256(utf8ToBytes(text)))));
  });

  it("10 000 keys held: under 300 bytes each on the heap (a rope of concatenations weighed about 900)", () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const held: string[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 10_000; i++) held.push(fetchKey("anonymous", normalizeRequest(`https://api.example.test/items/${i}?page=${i}`)));
    gc();
    const perKey = (process.memoryUsage().heapUsed - before) / held.length;
    expect(new Set(held).size).toBe(10_000);
    expect(perKey).toBeLessThan(300);
  });
});
