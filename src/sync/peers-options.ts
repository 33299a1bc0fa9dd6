/**
 * The rules for a y-websocket server's options, in a module of their own: connectBrowser checks
 * its `peers` with them at the call, in a tab that must not load y-websocket or Yjs for it (the
 * worker, or the tab's own replica, connects later), and the worker checks a tab's hello with them.
 */
import { kindOf, shownUrl, shownValue } from "../core/errors.ts";

/** A y-websocket server: its base URL, the doc's room, and the query parameters sent with the connection. */
export type PeersServer = { url: string; room: string; params?: Record<string, string> | undefined };

/**
 * What is wrong with `value` as a y-websocket server's options, or undefined when nothing is.
 * `name` is what the caller calls them (`peers`): the message names `peers.room`, say.
 */
export function peersProblem(value: unknown, name?: string): string | undefined {
  const option = (o: string) => `\`${name ? `${name}.${o}` : o}\``;
  if (typeof value !== "object" || value === null)
    return `${name ? `\`${name}\`` : "the options"} must be { url, room, params? }, got ${shownValue(value)}`;
  const given = value as Record<string, unknown>;
  for (const key of ["url", "room"]) {
    const v = given[key];
    // A URL (a string given as the options, a URL object) may carry a token in its query: never quoted.
    if (typeof v !== "string" || v === "") return `${option(key)} must be a non-empty string, got ${shownValue(v)}`;
  }
  const url = given.url as string;
  if (!["ws:", "wss:", "http:", "https:"].includes(protocolOf(url)))
    return `${option("url")} must be a ws:// or wss:// URL (e.g. "wss://sync.example.com"), got ${shownUrl(url)}`;
  // y-websocket appends the room to the URL as it is: "?" would start the query (rooms "a?x" and
  // "a?y" would be one room at the server, each tenant reading the other's doc), "#" a fragment.
  if (/[?#]/.test(given.room as string))
    return `${option("room")} must not contain "?" or "#" (the server would read another room), got ${shownUrl(given.room as string)}`;
  const params = given.params;
  if (params === undefined) return undefined;
  // y-websocket reads own keys only: a URLSearchParams or a Map would send none of its params.
  if (kindOf(params) !== "an object") return `${option("params")} must be a plain object of strings when given, got ${kindOf(params)}`;
  for (const [key, v] of Object.entries(params as object))
    // A param is often a token: named by its type, never quoted.
    if (typeof v !== "string") return `${option(`params.${key}`)} must be a string, got ${kindOf(v)}`;
  return undefined;
}

function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}
