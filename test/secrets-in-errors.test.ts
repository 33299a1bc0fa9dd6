/**
 * Invariant 13 ("Error messages"): a refusal of bad input never quotes a query string, userinfo,
 * a header value, a body or a token-bearing object, whatever the shape of the bad value (a URL
 * object, a request of a class, a session object as identity, a room or url carrying a token).
 */
import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { connectBrowser, connectPeers, createSharedFetchStore, sharedQueryOptions, SharedFetchInputError } from "../src/index.ts";

const TOKEN = "tok-SECRET-8c1e";
const HEADER = "hdr-SECRET-51aa";

function store() {
  const doc = new Y.Doc();
  return createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("unused")), locks: null, settleMs: 0 } as never);
}

async function messageOf(p: () => unknown): Promise<string> {
  try {
    await p();
  } catch (e) {
    return (e as Error).message;
  }
  return "(no error)";
}

describe("input errors never quote a token", () => {
  afterEach(() => {
    delete (globalThis as { location?: unknown }).location;
  });

  it("ensureProgram given a URL string instead of { url } does not quote the entry's query", async () => {
    const s = store();
    const msg = await messageOf(() => s.ensureProgram(`https://h.test/app/main.ts?token=${TOKEN}` as never));
    expect(msg).toMatch(/program request must be/);
    expect(msg).not.toContain(TOKEN);
    s.destroy();
  });

  it("ensure given a URL object does not quote its query", async () => {
    const s = store();
    const msg = await messageOf(() => s.ensure(new URL(`https://h.test/items?token=${TOKEN}`) as never));
    expect(msg).toMatch(/request must be a URL string/);
    expect(msg).not.toContain(TOKEN);
    s.destroy();
  });

  it("ensure given { url: URL object } does not quote its query", async () => {
    const s = store();
    const msg = await messageOf(() => s.ensure({ url: new URL(`https://h.test/items?token=${TOKEN}`) as never }));
    expect(msg).toMatch(/url must be a string/);
    expect(msg).not.toContain(TOKEN);
    s.destroy();
  });

  it("ensure given a request object of a class (not plain) does not quote its header values", async () => {
    class Req {
      url = "https://h.test/items";
      headers = { authorization: `Bearer ${HEADER}` };
    }
    const s = store();
    const msg = await messageOf(() => s.ensure(new Req() as never));
    expect(msg).toMatch(/request must be a URL string/);
    expect(msg).not.toContain(HEADER);
    s.destroy();
  });

  it("sharedQueryOptions: a relative URL outside a browser does not quote its query", async () => {
    const s = store();
    const options = sharedQueryOptions(s, `/api/items?token=${TOKEN}`);
    const msg = await messageOf(() => new QueryClient().fetchQuery({ ...options, retry: false }));
    expect(msg).toMatch(/is relative and there is no page location/);
    expect(msg).not.toContain(TOKEN);
    s.destroy();
  });

  it("sharedQueryOptions: a page location relative URLs cannot resolve against (about:srcdoc) does not quote the request's headers", async () => {
    (globalThis as { location?: unknown }).location = { href: "about:srcdoc" };
    const s = store();
    const options = sharedQueryOptions(s, { url: "/api/items", headers: { authorization: `Bearer ${HEADER}` } });
    const msg = await messageOf(() => new QueryClient().fetchQuery({ ...options, retry: false }));
    expect(msg).toMatch(/is not a request/);
    expect(msg).not.toContain(HEADER);
    s.destroy();
  });

  it("createSharedFetchStore: an identity that is not a string (a session object) is not quoted", () => {
    const msg = (() => {
      try {
        createSharedFetchStore({ doc: new Y.Doc(), identity: { user: "u1", token: TOKEN } as never });
      } catch (e) {
        expect(e).toBeInstanceOf(SharedFetchInputError);
        return (e as Error).message;
      }
      return "(no error)";
    })();
    expect(msg).toMatch(/identity must be a string/);
    expect(msg).not.toContain(TOKEN);
  });

  it("connectBrowser: a fetch that is not a function is named by type, as createSharedFetchStore does", () => {
    let msg = "(no error)";
    try {
      connectBrowser({ name: "x", worker: false, fetch: { headers: { authorization: `Bearer ${HEADER}` } } as never });
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/fetch must be a function/);
    expect(msg).not.toContain(HEADER);
  });

  it("connectPeers: a room carrying a token after '?' is refused without quoting the token", () => {
    let msg = "(no error)";
    try {
      connectPeers(new Y.Doc(), { url: "ws://127.0.0.1:9", room: `doc-1?token=${TOKEN}` });
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/must not contain "\?"/);
    expect(msg).not.toContain(TOKEN);
  });

  it("connectPeers: a url without a scheme carrying a token is refused without quoting the token", () => {
    let msg = "(no error)";
    try {
      connectPeers(new Y.Doc(), { url: `sync.example.com/?token=${TOKEN}`, room: "r" });
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/must be a ws/);
    expect(msg).not.toContain(TOKEN);
  });
});

describe("userinfo in a URL is never shown (README: 'userinfo never')", () => {
  const PW = "pw-SECRET-77d0";
  it.each([
    ["a leading space (new URL trims it; shownUrl's ^scheme anchor does not)", ` https://user:${PW}@h.test/x`],
    ["a leading tab", `\thttps://user:${PW}@h.test/x`],
    ["a protocol-relative URL", `//user:${PW}@h.test/x`],
  ])("%s", async (_what, url) => {
    const s = store();
    const msg = await messageOf(() => s.ensure({ url }));
    expect(msg).toMatch(/shared-fetch: url/);
    expect(msg).not.toContain(PW);
    s.destroy();
  });
});
