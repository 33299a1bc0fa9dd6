import { describe, shownUrl, shownValue } from "../core/errors.ts";
import { warnUnknownOptions } from "../core/options.ts";
import type { WebSocketConstructor } from "../sync/connect-peers.ts";
import { requireNonEmptyString, requireOptions, requireWebSocket } from "../sync/connection.ts";
import type { HocuspocusAuthError } from "./errors.ts";

export type HocuspocusOptions = {
  /** One Hocuspocus URL, e.g. "wss://sync.example.com". Give `url` or `urls`. */
  url?: string | undefined;
  /** Several instances of one cluster: on every lost connection or failed attempt, the next one. */
  urls?: string[] | undefined;
  /** Document name on the server: one per doc and trust boundary. */
  room: string;
  /** Sent to the server's `onAuthenticate` (a function is asked again at every connection). */
  token: string | (() => string | Promise<string>);
  /** Needed where there is no global WebSocket (Node 20). */
  WebSocketPolyfill?: WebSocketConstructor | undefined;
  /** First reconnect delay in ms (default 1000, Hocuspocus' own); later attempts back off. */
  reconnectDelayMs?: number | undefined;
  /**
   * Called once when the server refuses the token, whenever that happens: at the first connection
   * (`whenSynced` rejects too) or at a reconnect after a secret was rotated, when `whenSynced` has
   * long resolved. The connection has stopped and is released as by destroy(); show a sign-in and
   * connect again with a new token: the stores on the doc follow the new connection.
   */
  onRefused?: ((error: HocuspocusAuthError) => void) | undefined;
  /**
   * Every device of the room reaches this one instance (`url`, no cluster behind it): its order
   * decides races between devices' claims exactly, as y-websocket's does (a fence), instead of a
   * timed window. Default false: instances on Redis each order their own clients first.
   */
  oneInstance?: boolean | undefined;
};

function checkedUrls(opts: HocuspocusOptions): string[] {
  if (opts.url !== undefined && opts.urls !== undefined) throw new TypeError("connectHocuspocus: give `url` or `urls`, not both");
  const urls = opts.urls ?? (opts.url === undefined ? [] : [opts.url]);
  if (!Array.isArray(urls) || urls.length === 0)
    throw new TypeError(
      `connectHocuspocus: \`url\` or \`urls\` is required, got ${Array.isArray(opts.urls) ? "[]" : shownValue(opts.urls ?? opts.url)}`,
    );
  for (const url of urls) {
    requireNonEmptyString("connectHocuspocus", "url", url);
    let protocol = "";
    try {
      protocol = new URL(url).protocol;
    } catch {
      // reported below
    }
    if (protocol !== "ws:" && protocol !== "wss:")
      throw new TypeError(`connectHocuspocus: \`url\` must be a ws:// or wss:// URL, got ${shownUrl(url)}`);
  }
  return urls;
}

/** connectHocuspocus' options, checked: a TypeError naming the option and the value, unless they hold. */
export function checkedOptions(opts: HocuspocusOptions) {
  requireOptions("connectHocuspocus", opts);
  warnUnknownOptions("connectHocuspocus", opts, {
    url: 0,
    urls: 0,
    room: 0,
    token: 0,
    WebSocketPolyfill: 0,
    reconnectDelayMs: 0,
    onRefused: 0,
    oneInstance: 0,
  } satisfies Record<keyof HocuspocusOptions, 0>);
  const urls = checkedUrls(opts);
  requireNonEmptyString("connectHocuspocus", "room", opts.room);
  requireWebSocket("connectHocuspocus", opts.WebSocketPolyfill);
  if (typeof opts.token !== "string" && typeof opts.token !== "function") {
    // A token is a secret: the refusal says what it is, never what it holds.
    const got = opts.token === null || opts.token === undefined ? String(opts.token) : `a value of type ${typeof opts.token}`;
    throw new TypeError(`connectHocuspocus: \`token\` must be a string or a function returning one, got ${got}`);
  }
  if (opts.WebSocketPolyfill === undefined && typeof WebSocket === "undefined") {
    throw new TypeError("connectHocuspocus: no global WebSocket here; pass `WebSocketPolyfill` (e.g. from 'ws')");
  }
  const token = opts.token;
  const delay = opts.reconnectDelayMs ?? 1000;
  if (!Number.isFinite(delay) || delay < 0)
    throw new TypeError(`connectHocuspocus: \`reconnectDelayMs\` must be a number ≥ 0, got ${describe(delay)}`);
  const oneInstance = opts.oneInstance ?? false;
  if (typeof oneInstance !== "boolean")
    throw new TypeError(`connectHocuspocus: \`oneInstance\` must be a boolean, got ${describe(oneInstance)}`);
  if (oneInstance && urls.length > 1)
    throw new TypeError(`connectHocuspocus: \`oneInstance\` means one instance, got ${urls.length} \`urls\`; give \`url\``);
  const onRefused = opts.onRefused;
  if (onRefused !== undefined && typeof onRefused !== "function")
    throw new TypeError(`connectHocuspocus: \`onRefused\` must be a function, got ${describe(onRefused)}`);

  return { urls, token, delay, oneInstance, onRefused };
}
