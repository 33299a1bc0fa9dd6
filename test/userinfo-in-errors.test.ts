/**
 * Invariant 13 ("Error messages"): errors about refused input name a URL without its userinfo.
 * A password pasted into a URL often holds "/", "+" or "=" (a base64 token) or "?" or "#"
 * unencoded: then the URL parser ends the authority early, and the refusal must still not
 * quote any part of it.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchInputError } from "../src/index.ts";

const USER = "alice-secret-u7";
const PASS = "pw-secret-9f";

describe("refused URLs never quote userinfo whose password holds an unencoded / ? or #", () => {
  it.each([
    ["a base64-like password with '/'", `https://${USER}:${PASS}/Ab+c=@api.example.test/items`],
    ["a password with '?'", `https://${USER}:${PASS}?x@api.example.test/items`],
    ["a password with '#'", `https://${USER}:${PASS}#x@api.example.test/items`],
    ["a password with '@' and '/'", `https://${USER}:p@${PASS}/y@api.example.test/items`],
    ["a password with '/' then '?'", `https://${USER}:${PASS}/a?b@api.example.test/items`],
  ])("%s: ensure rejects naming the URL without user or password, nothing written", async (_what, url) => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("unused")), locks: null, settleMs: 0 });
    const updates: Uint8Array[] = [];
    doc.on("update", (u: Uint8Array) => updates.push(u));
    const error = await store.ensure({ url }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SharedFetchInputError);
    const { message } = error as Error;
    expect(message).toMatch(/^shared-fetch: url "https:\/\/…/);
    expect(message).not.toContain(USER);
    expect(message).not.toContain(PASS);
    expect(updates).toEqual([]);
    store.destroy();
  });

  it("a URL with no userinfo is still shown up to its query", async () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), fetch: () => Promise.reject(new Error("unused")), locks: null, settleMs: 0 });
    await expect(store.ensure({ url: "https://exa mple.test/items?token=t-SECRET" })).rejects.toThrow(
      'url "https://exa mple.test/items?…" is not a valid absolute URL',
    );
    await expect(store.ensure({ url: "ftp://files.example.test/a/b?token=t-SECRET" })).rejects.toThrow(
      'url "ftp://files.example.test/a/b?…" has protocol ftp:',
    );
    store.destroy();
  });
});
