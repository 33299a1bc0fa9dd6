import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { boundedMemo } from "./bounded-memo.ts";
import type { NormalizedRequest } from "./request.ts";

/** The kinds of work the store coordinates; part of every key so kinds never share one. */
export type WorkKind = "fetch" | "program";

/**
 * Length-prefixed, type-tagged fields: no two distinct inputs serialise to the same text
 * (a body containing a separator cannot shift a field boundary; `undefined` body ≠ empty body).
 */
function field(tag: string, value: string | undefined): string {
  return value === undefined ? `${tag}-;` : `${tag}${value.length}:${value};`;
}

/**
 * Hex joined in one go: noble's bytesToHex builds it by 64 concatenations, a rope of string nodes
 * (about 0.9 KB in V8 where Uint8Array has no toHex) that every map and record holding the key kept.
 */
export function hashKey(parts: string): string {
  return Array.from(sha256(utf8ToBytes(parts)), (b) => (b < 16 ? "0" : "") + b.toString(16)).join("");
}

export function fetchKey(identity: string, req: NormalizedRequest): string {
  const names = Object.keys(req.headers).sort();
  let text = field("v", "1") + field("i", identity) + field("k", "fetch") + field("u", req.url) + field("m", req.method);
  text += field("h", String(names.length));
  for (const name of names) text += field("n", name) + field("x", req.headers[name]);
  text += field("b", req.body) + field("p", req.parse);
  // Only when given: the keys of requests without one stay as they were, in docs already written.
  if (req.callId !== undefined) text += field("c", req.callId);
  // Header values and bodies may be secrets: their texts are hashed each time, never kept.
  return names.length === 0 && req.body === undefined ? rememberedHash(text) : hashKey(text);
}

export function programKey(identity: string, url: string, compile: boolean): string {
  return rememberedHash(field("v", "1") + field("i", identity) + field("k", "program") + field("u", url) + field("c", compile ? "1" : "0"));
}

/** Hashes without headers or a body (so no secret is kept); sha256 runs cold while a tab boots. */
const rememberedHashes = boundedMemo();
const rememberedHash = (text: string): string => rememberedHashes(text, () => hashKey(text));
