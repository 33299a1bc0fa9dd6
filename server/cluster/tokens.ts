import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Room tokens: `hex(HMAC-SHA256(secret, room))`. Whoever holds the server secret (your auth
 * backend) hands a client the token of each room it may open; the token names no user and never
 * expires, so rotate the secret to revoke. One room is one doc is one trust boundary (DESIGN.md,
 * invariant 13), so a token per room is the whole access rule.
 */
export function roomToken(secret: string, room: string): string {
  if (typeof secret !== "string" || secret.length < 16)
    throw new TypeError("roomToken: `secret` must be a string of at least 16 characters");
  if (typeof room !== "string" || room === "")
    throw new TypeError(`roomToken: \`room\` must be a non-empty string, got ${JSON.stringify(room)}`);
  return createHmac("sha256", secret).update(room, "utf8").digest("hex");
}

/** Constant-time check of a token a client sent for `room`. */
export function isRoomToken(secret: string, room: string, token: unknown): boolean {
  if (typeof token !== "string") return false;
  const expected = Buffer.from(roomToken(secret, room), "utf8");
  const given = Buffer.from(token, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** For local use only (`npm run server:cluster`, tests, bench): never deploy with it. */
export const DEMO_SECRET = "shared-fetch-demo-secret-not-for-production";
