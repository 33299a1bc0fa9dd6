/**
 * Invariant 13 for the connectors' options: "errors about refused input name a URL without its
 * query, fragment or userinfo and anything else by its kind only". A sync server's URL often
 * carries the token (`?token=`), and a `new URL(…)` where a string is expected, or a URL string
 * where `{ url, room }` is expected, is an easy slip: the refusal must not print the token into
 * the console or an error tracker. And params y-websocket cannot read are refused, not dropped.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import WebSocket from "ws";
import { connectBrowser, connectPeers, SharedFetchInputError } from "../src/index.ts";
import { connectHocuspocus } from "../src/hocuspocus/index.ts";

const TOKEN = "tok-SECRET-4b7d";
const withToken = `wss://sync.example.com/?token=${TOKEN}`;
const WebSocketPolyfill = WebSocket as never;

function refusal(call: () => unknown): Error {
  try {
    (call() as { destroy?: () => void } | undefined)?.destroy?.();
  } catch (e) {
    return e as Error;
  }
  throw new Error("not refused");
}

describe("invariant 13: the connectors' refusals never quote a sync URL's token", () => {
  it.each([
    [
      "connectPeers, url as a URL object",
      () => connectPeers(new Y.Doc(), { url: new URL(withToken) as never, room: "r", WebSocketPolyfill }),
    ],
    [
      "connectBrowser, peers.url as a URL object",
      () => connectBrowser({ name: "app", worker: false, peers: { url: new URL(withToken) as never, room: "r" } }),
    ],
    [
      "connectHocuspocus, url as a URL object",
      () => connectHocuspocus(new Y.Doc(), { url: new URL(withToken) as never, room: "r", token: "t", WebSocketPolyfill }),
    ],
    [
      "connectHocuspocus, urls as a URL object in the array",
      () => connectHocuspocus(new Y.Doc(), { urls: [new URL(withToken) as never], room: "r", token: "t", WebSocketPolyfill }),
    ],
  ])("%s: refused as 'a URL', the token not quoted", (_what, call) => {
    const error = refusal(call);
    expect(error.message).toMatch(/`(peers\.)?url` must be a non-empty string, got a URL$/);
    expect(error.message).not.toContain(TOKEN);
  });

  it("connectHocuspocus, a token that is an object (a session): named by its kind, never quoted", () => {
    const session = { jwt: TOKEN };
    const error = refusal(() =>
      connectHocuspocus(new Y.Doc(), { url: "wss://sync.example.com", room: "r", token: session as never, WebSocketPolyfill }),
    );
    expect(error.message).toMatch(/`token` must be a string or a function returning one, got a value of type object$/);
    expect(error.message).not.toContain(TOKEN);
  });

  it("connectBrowser, peers given as the URL string: refused showing the URL up to its query", () => {
    const error = refusal(() => connectBrowser({ name: "app", worker: false, peers: withToken as never }));
    expect(error).toBeInstanceOf(SharedFetchInputError);
    expect(error.message).toMatch(/`peers` must be \{ url, room, params\? \}, got "wss:\/\/sync\.example\.com\/\?…"$/);
    expect(error.message).not.toContain(TOKEN);
  });

  it("connectHocuspocus, urls given as one URL string: refused showing the URL up to its query", () => {
    const error = refusal(() => connectHocuspocus(new Y.Doc(), { urls: withToken as never, room: "r", token: "t", WebSocketPolyfill }));
    expect(error.message).toMatch(/`url` or `urls` is required, got "wss:\/\/sync\.example\.com\/\?…"$/);
    expect(error.message).not.toContain(TOKEN);
  });
});

describe("connectPeers' params: only a plain object of strings (y-websocket reads its own keys)", () => {
  it.each([
    ["a URLSearchParams", () => new URLSearchParams({ token: TOKEN }), "a URLSearchParams"],
    ["a Map", () => new Map([["token", TOKEN]]), "a Map"],
  ])("%s is refused, named by its kind, rather than connecting without the token", (_what, params, kind) => {
    const error = refusal(() =>
      connectPeers(new Y.Doc(), { url: "ws://127.0.0.1:9", room: "r", params: params() as never, WebSocketPolyfill }),
    );
    expect(error.message).toBe(`connectPeers: \`params\` must be a plain object of strings when given, got ${kind}`);
    const browser = refusal(() =>
      connectBrowser({ name: "app", worker: false, peers: { url: "ws://127.0.0.1:9", room: "r", params: params() as never } }),
    );
    expect(browser.message).toContain(`\`peers.params\` must be a plain object of strings when given, got ${kind}`);
  });

  it("a plain object, or one without a prototype, is taken", () => {
    for (const params of [{ token: TOKEN }, Object.assign(Object.create(null) as object, { token: TOKEN })]) {
      const peers = connectPeers(new Y.Doc(), { url: "ws://127.0.0.1:9", room: "r", params: params as never, WebSocketPolyfill });
      expect(peers.provider.url).toContain(`token=${TOKEN}`);
      peers.provider.awareness.destroy();
      peers.destroy();
    }
  });
});
